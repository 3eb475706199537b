// Submitting background work: a task row first (so any process can answer for it and a restart can
// resume it), then a dispatch to whoever runs tasks: BullMQ, the runner process of this server, or
// this process.
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { config } from '../config';
import { db } from '../db/client';
import { type TenantDb, tenantCreate } from '../db/tenant';
import { queueUnavailable } from '../errors';
import { tellPrimary, webRole } from '../server/ipc';
import { failUndispatchedTask } from './lifecycle';
import { enqueueLocal } from './local-runner';
import type { TaskKind } from './types';

export interface NewTask {
  kind: TaskKind;
  payload: unknown;
  /** The uploaded file's name, as the client sent it. */
  fileName?: string;
  fieldId?: number;
  scanId?: number;
  createdBy?: number;
  /**
   * Files the task is to own (an uploaded raster already moved into the field's folder): removed when
   * its row cannot be written (the database busy, the field deleted meanwhile), as nothing else would
   * ever remove them. Once the row exists they are the task's, even when dispatching it fails.
   */
  ownedFiles?: string[];
}

/** Writes the task row and hands it to whoever runs tasks. */
export async function submitTask(db: TenantDb, input: NewTask) {
  let task;
  try {
    task = await writeTask(db, input);
  } catch (err) {
    await Promise.all((input.ownedFiles ?? []).map((f) => rm(f, { force: true })));
    throw err;
  }
  await dispatchTask(task.id, input.kind);
  return task;
}

function writeTask(db: TenantDb, input: NewTask) {
  return db.task.create({
    data: tenantCreate('task', {
      id: randomUUID(),
      kind: input.kind,
      payloadJson: JSON.stringify(input.payload),
      fileName: input.fileName ?? null,
      fieldId: input.fieldId ?? null,
      scanId: input.scanId ?? null,
      createdBy: input.createdBy ?? null,
    }),
  });
}

/** Hands a task to whoever runs tasks. With Redis not answering, the task ends in error and the request answers 503. */
export async function dispatchTask(id: string, kind: TaskKind): Promise<void> {
  if (config().REDIS_URL) {
    const { enqueueRedis } = await import('./redis-queue');
    if (!(await enqueueRedis(id, kind))) {
      await failUndispatchedTask(db(), id);
      throw queueUnavailable();
    }
  } else if (webRole() === 'web') {
    // Another web process of this server runs the tasks (lib/server/cluster.ts).
    tellPrimary({ fieldmap: 'task', id, kind });
  } else {
    enqueueLocal(id, kind);
  }
}
