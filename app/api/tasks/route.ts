import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { readQuery } from '@/lib/http/validate';
import { listTasks } from '@/lib/tasks/list';
import { taskListQuery } from '@/lib/tasks/schemas';

export const GET = route('GET /api/tasks', async ({ db, url, locale }) => ok({ tasks: await listTasks(db, readQuery(url, taskListQuery), locale) }));
