// The jobs as the task runner needs them: called once where a process that runs tasks is put
// together (instrumentation.ts for the server's runner, lib/jobs/worker.ts for `npm run worker`).
// Worker threads load the job code itself by path (lib/tasks/worker-entry.mjs -> lib/jobs/jobs.ts).
import { registerFinishers } from '../tasks/finishing';
import { FINISHERS } from './finishers';

export function registerJobs(): void {
  registerFinishers(FINISHERS);
}
