import { expect } from 'vitest';
import type { Api } from './api';

/** Polls GET /api/tasks/{id} until the task ends; returns its last state. */
export async function waitForTask(api: Api, taskId: string, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get(`/api/tasks/${taskId}`);
    expect(res.status, res.text).toBe(200);
    if (res.body.status === 'completed' || res.body.status === 'error') return res.body;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${res.body.status} (${res.body.progress})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
