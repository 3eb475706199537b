// `npm run worker`: the jobs registered, then the BullMQ worker process (lib/tasks/worker-process.ts).
import { registerJobs } from './index';

registerJobs();
await import('../tasks/worker-process');
