// A worker thread that inspects the TIFFs it is sent, one at a time, for a test that gives it a heap
// cap (resourceLimits): a file that made inspection allocate by a forged count would end the thread.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register({ tsconfig: new URL('../../tsconfig.json', import.meta.url).pathname });
const { inspectRaster } = await import(new URL('../../lib/raster/inspect.ts', import.meta.url).href);
const { HTTP_STATUS } = await import(new URL('../../lib/http/errors.ts', import.meta.url).href);

parentPort.on('message', async ({ id, path }) => {
  try {
    await inspectRaster(path);
    parentPort.postMessage({ id, outcome: 'returned' });
  } catch (err) {
    const typed = err?.name === 'AppError';
    parentPort.postMessage({ id, outcome: typed ? 'typed' : 'other', status: typed ? HTTP_STATUS[err.kind] : undefined, key: err?.key, text: String(err?.stack ?? err).slice(0, 500) });
  }
});
parentPort.postMessage({ ready: true });
