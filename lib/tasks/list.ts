// The company's recent background tasks, newest first: what an operator uploaded, where it stands,
// and why it failed (a failed zoning task leaves no scan behind to say so).
import type { z } from 'zod';
import { personName } from '../auth/person-name';
import type { TenantDb } from '../db/tenant';
import type { Locale } from '../i18n/locales';
import type { taskListQuery } from './schemas';
import type { ImportKind } from './import-record';
import type { TaskKind } from './types';
import { taskView } from './view';

export type TaskListQuery = z.infer<typeof taskListQuery>;

export async function listTasks(db: TenantDb, query: TaskListQuery, locale: Locale) {
  const rows = await db.task.findMany({
    where: { status: query.status && { in: query.status }, kind: query.kind, fieldId: query.field_id },
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    take: query.limit,
    // Not the payload: a drone task's lists every photo and the field's boundary.
    select: {
      id: true,
      kind: true,
      status: true,
      progress: true,
      percent: true,
      resultJson: true,
      error: true,
      fileName: true,
      scanId: true,
      createdBy: true,
      createdAt: true,
      finishedAt: true,
      field: { select: { id: true, name: true } },
    },
  });
  const creatorIds = [...new Set(rows.map((r) => r.createdBy).filter((id): id is number => id !== null))];
  const creators = new Map(
    creatorIds.length ? (await db.user.findMany({ where: { id: { in: creatorIds } }, select: { id: true, firstName: true, lastName: true, email: true } })).map((u) => [u.id, { id: u.id, name: personName(u.firstName, u.lastName, u.email) }]) : [],
  );
  return rows.map((r) => ({
    ...taskView(r, locale),
    kind: r.kind as TaskKind | ImportKind,
    file_name: r.fileName,
    field: r.field,
    scan_id: r.scanId,
    // A user removed since is no longer named.
    created_by: (r.createdBy !== null && creators.get(r.createdBy)) || null,
    created_at: r.createdAt.toISOString(),
    finished_at: r.finishedAt?.toISOString() ?? null,
  }));
}

export type TaskListItem = Awaited<ReturnType<typeof listTasks>>[number];
