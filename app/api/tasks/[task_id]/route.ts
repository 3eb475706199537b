import { notFound } from '@/lib/errors';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { taskView } from '@/lib/tasks/view';

export const GET = route('GET /api/tasks/{task_id}', async ({ db, params, locale }) => {
  const id = typeof params.task_id === 'string' ? params.task_id : '';
  const task = /^[0-9a-f-]{36}$/.test(id) ? await db.task.findUnique({ where: { id } }) : null;
  if (!task) throw notFound();
  return ok(taskView(task, locale));
});
