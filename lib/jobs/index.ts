// The jobs as the task runner needs them: called once where a process that may end tasks is put
// together (instrumentation.ts for every server process, lib/jobs/worker.ts for `npm run worker`).
// Worker threads load the job code itself by path (lib/tasks/worker-entry.mjs -> lib/jobs/jobs.ts).
import { registerTaskKinds } from '../tasks/finishing';
import { TASK_HANDLERS } from './finishers';

export function registerJobs(): void {
  registerTaskKinds(TASK_HANDLERS);
}
