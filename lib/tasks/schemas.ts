import { z } from 'zod';
import { IMPORT_KINDS } from './import-record';
import { TASK_KINDS } from './types';
import { recordIdText } from '../http/record-id';

const STATUSES = ['pending', 'running', 'completed', 'error'] as const;

/**
 * `GET /api/tasks`: the newest first, 20 unless told (at most 100); optionally of some statuses
 * (`status=pending,running`), one kind, one field.
 */
export const taskListQuery = z.object({
  status: z
    .string()
    .transform((s) => s.split(','))
    .pipe(z.array(z.enum(STATUSES)))
    .optional(),
  kind: z.enum([...TASK_KINDS, ...IMPORT_KINDS]).optional(),
  field_id: recordIdText.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
