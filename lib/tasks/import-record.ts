// Imports done within their request (a shapefile's fields) kept as finished tasks, so that the list of
// recent tasks shows them beside rasters and surveys: who imported which file, when, and how it went.
import { randomUUID } from 'node:crypto';
import { type TenantDb, tenantCreate } from '../db/tenant';
import { AppError } from '../errors';

export const IMPORT_KINDS = ['shapefile'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

export interface ImportRecord {
  kind: ImportKind;
  fileName: string | null;
  createdBy: number;
  startedAt: Date;
  /** What the import answered (fields_created, …) or why it was refused. */
  outcome: { result: Record<string, unknown> } | { error: unknown };
}

/** The refusal as task errors keep it (`{key, params}`, translated when listed); a crash as the generic failure. */
function errorJson(err: unknown): string {
  return JSON.stringify(err instanceof AppError ? { key: err.key, params: err.params } : { key: 'internal' });
}

export async function recordImport(db: TenantDb, record: ImportRecord): Promise<void> {
  const failed = 'error' in record.outcome;
  await db.task.create({
    data: tenantCreate('task', {
      id: randomUUID(),
      kind: record.kind,
      status: failed ? 'error' : 'completed',
      percent: 100,
      fileName: record.fileName,
      createdBy: record.createdBy,
      resultJson: 'result' in record.outcome ? JSON.stringify(record.outcome.result) : null,
      error: 'error' in record.outcome ? errorJson(record.outcome.error) : null,
      startedAt: record.startedAt,
      finishedAt: new Date(),
    }),
  });
}
