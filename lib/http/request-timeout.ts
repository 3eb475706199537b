// Node's HTTP server ends every request that has not fully arrived after 300 s (`requestTimeout`),
// and `next start` offers no setting for it (vercel/next.js#74992). A 10 GB drone upload from a
// field office's link needs hours. Stalled clients are still cut off by the upload idle timeout
// (UPLOAD_IDLE_TIMEOUT_S) and by Node's headersTimeout.
import http from 'node:http';

type PatchedServer = typeof http.Server.prototype & { __fieldmapRequestTimeoutMs?: number };

/**
 * Sets `requestTimeout` on every HTTP server of this process as its connections arrive (Next.js
 * creates the server before our code runs, so the setting is applied on the first connection).
 */
export function setRequestTimeout(ms: number): void {
  const proto = http.Server.prototype as PatchedServer;
  if (proto.__fieldmapRequestTimeoutMs === undefined) {
    const emit = proto.emit;
    proto.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
      // Every event of every server passes here: only a new connection looks further.
      const wanted = event === 'connection' ? (http.Server.prototype as PatchedServer).__fieldmapRequestTimeoutMs! : undefined;
      if (wanted !== undefined && this.requestTimeout !== wanted) {
        this.requestTimeout = wanted;
        // As Node's constructor does: the headers' deadline may not be later than the request's.
        if (this.headersTimeout > wanted) this.headersTimeout = wanted;
      }
      return (emit as (...a: unknown[]) => boolean).call(this, event, ...args);
    } as typeof proto.emit;
  }
  proto.__fieldmapRequestTimeoutMs = ms;
}
