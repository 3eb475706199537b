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
  /** The task's id when it was chosen before the row (files already named after it). */
  id?: string;
  kind: TaskKind;
  payload: unknown;
  /** The uploaded file's name, as the client sent it. */
  fileName?: string;
  fieldId?: number;
  scanId?: number;
  createdBy?: number;
  /**
   * Files and folders the task is to own (an uploaded raster already moved into the field's folder): removed when
   * its row cannot be written (the database busy, the field deleted meanwhile), as nothing else would
   * ever remove them. Once the row exists they are the task's, even when dispatching it fails.
   */
  ownedFiles?: string[];
  /**
   * A scan row announced with the task, in the same transaction (a drone survey's, shown as
   * `processing` until the task ends): the task is made for the scan this returns.
   */
  announceScan?: (tx: Pick<TenantDb, 'scan'>) => Promise<{ id: number }>;
}

/** Writes the task row and hands it to whoever runs tasks. */
export async function submitTask(db: TenantDb, input: NewTask) {
  let task;
  try {
    task = await writeTask(db, input);
  } catch (err) {
    await Promise.all((input.ownedFiles ?? []).map((f) => rm(f, { recursive: true, force: true })));
    throw err;
  }
  await dispatchTask(task.id, input.kind);
  return task;
}

async function writeTask(db: TenantDb, input: NewTask) {
  const row = (scanId: number | null) =>
    tenantCreate('task', {
      id: input.id ?? randomUUID(),
      kind: input.kind,
      payloadJson: JSON.stringify(input.payload),
      fileName: input.fileName ?? null,
      fieldId: input.fieldId ?? null,
      scanId,
      createdBy: input.createdBy ?? null,
    });
  const { announceScan } = input;
  if (!announceScan) return db.task.create({ data: row(input.scanId ?? null) });
  return db.$transaction(async (tx) => tx.task.create({ data: row((await announceScan(tx)).id) }));
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
