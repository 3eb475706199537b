// Entry of a drone thread (lib/drone/threads.ts). Its code is TypeScript outside the Next.js
// bundle, so it is loaded through tsx here, as lib/tasks/worker-entry.mjs loads a job's.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register({ tsconfig: new URL('../../tsconfig.json', import.meta.url).pathname });
const { serveFeatureTasks } = await import(new URL('./threads.ts', import.meta.url).href);
serveFeatureTasks(parentPort);
