import { z } from 'zod';

/** `GET /api/tasks`: the newest first, optionally of one status; 20 unless told (at most 100). */
export const taskListQuery = z.object({
  status: z.enum(['pending', 'running', 'completed', 'error']).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
