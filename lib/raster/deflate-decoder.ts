// GeoTIFF DEFLATE blocks inflated by Node's zlib (C, on libuv's thread pool) in place of geotiff.js's
// JavaScript inflate: several times faster, and off the event loop while other requests are served.
// Registered once for the process on import; the predictor is still geotiff.js's (BaseDecoder).
import { promisify } from 'node:util';
import { inflate } from 'node:zlib';
import { BaseDecoder, addDecoder } from 'geotiff';

const inflateAsync = promisify(inflate);

class ZlibDeflateDecoder extends BaseDecoder {
  async decodeBlock(buffer: ArrayBufferLike): Promise<ArrayBufferLike> {
    const out = await inflateAsync(new Uint8Array(buffer));
    return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength);
  }
}

// 8: Adobe Deflate, 32946: the old Deflate code; the parameters (predictor, block size) stay geotiff.js's own.
addDecoder([8, 32946], async () => ZlibDeflateDecoder as unknown as typeof BaseDecoder, undefined, false);
