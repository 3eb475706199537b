// Entry of a worker thread that runs one job. Job code is TypeScript outside the Next.js bundle, so
// it is loaded through tsx here.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register({ tsconfig: new URL('../../tsconfig.json', import.meta.url).pathname });
const { runJob } = await import(new URL('../jobs/jobs.ts', import.meta.url).href);
const { isAppError } = await import(new URL('../errors.ts', import.meta.url).href);

try {
  const result = await runJob(workerData.kind, workerData.payload, {
    workDir: workerData.workDir,
    progress: (percent, step) => parentPort.postMessage({ type: 'progress', percent, step }),
  });
  parentPort.postMessage({ type: 'result', result });
} catch (err) {
  parentPort.postMessage({
    type: 'error',
    error: isAppError(err)
      ? { key: err.key, params: err.params, final: true }
      : { key: 'task_failed', params: { reason: String(err?.message ?? err).slice(0, 500) }, final: false },
  });
}
