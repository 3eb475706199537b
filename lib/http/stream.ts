// Large answers (a company's whole field list is tens of megabytes) are sent as they are produced:
// memory stays flat, the first bytes leave at once, and the web process's compression (level 1, on
// libuv's thread pool: lib/server/web.mjs) works on each part while the next one is read. A route
// handler cannot choose its own encoding: Next.js drops a Content-Encoding it sets (send-response.js).
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Streams `chunks` as the body. The first chunk is awaited before the answer starts, so that a
 * failure at the start (the database, a bad filter) still becomes the error envelope; a failure
 * later aborts the connection, which the client sees as a cut-off answer rather than a wrong one.
 *
 * Before and after reading each chunk the event loop gets a turn. On SQLite the reads are
 * synchronous, so without it a whole list ran as one stretch of microtasks: the compressor's
 * thread, which needs the event loop to hand it each next piece, sat idle until the list was
 * written (the gzipped list took as long as writing plus compressing it), and the process's other
 * requests waited for the whole list instead of one page.
 */
export async function streamResponse(chunks: AsyncIterable<Uint8Array>, contentType: string): Promise<Response> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* all() {
    if (first.done) return;
    yield first.value;
    for (;;) {
      await nextTurn();
      const next = await iterator.next();
      if (next.done) return;
      await nextTurn();
      yield next.value;
    }
  }
  return new Response(Readable.toWeb(Readable.from(all())) as ReadableStream<Uint8Array>, { headers: { 'content-type': contentType } });
}
