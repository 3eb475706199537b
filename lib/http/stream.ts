// Large answers (a company's whole field list is tens of megabytes) are sent as they are produced:
// memory stays flat, the first bytes leave at once, and the web process's compression (level 1, on
// libuv's thread pool: lib/server/web.mjs) works on each part while the next one is read. A route
// handler cannot choose its own encoding: Next.js drops a Content-Encoding it sets (send-response.js).
import { Readable } from 'node:stream';

/**
 * Streams `chunks` as the body. The first chunk is awaited before the answer starts, so that a
 * failure at the start (the database, a bad filter) still becomes the error envelope; a failure
 * later aborts the connection, which the client sees as a cut-off answer rather than a wrong one.
 */
export async function streamResponse(chunks: AsyncIterable<Uint8Array>, contentType: string): Promise<Response> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* all() {
    if (first.done) return;
    yield first.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return new Response(Readable.toWeb(Readable.from(all())) as ReadableStream<Uint8Array>, { headers: { 'content-type': contentType } });
}
