// Streams a multipart/form-data request straight to files in the data folder: never the whole body
// in memory, a size limit per part, an idle timeout for stalled clients, and every file removed
// again when anything fails. Only the parts named in `files` are kept as files; another file part is
// read as a text field when small (a JSON part sent as a file), else drained.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import busboy from 'busboy';
import { config } from '../config';
import { AppError, badRequest, clientClosed, insufficientStorage, isDiskFull, payloadTooLarge, requestTimeout, unprocessable, unsupportedMediaType } from '../errors';

export interface ReceivedFile {
  part: string;
  /** The name the client gave, for display; never used as a path. */
  filename: string;
  path: string;
  size: number;
  sha256: string;
  mimeType: string;
}

export interface Received {
  files: Record<string, ReceivedFile>;
  fields: Record<string, string>;
  /** Removes every file received (call when the upload is not kept). */
  discard(): Promise<void>;
}

export interface ReceiveOptions {
  /** Folder for the files (created if needed). */
  dir: string;
  /** Part name -> largest size in bytes. */
  files: Record<string, number>;
  maxFieldBytes?: number;
  /** No byte for this long ends the upload with 408 (default: UPLOAD_IDLE_TIMEOUT_S). */
  idleTimeoutMs?: number;
}

const MB = 1024 * 1024;
/** Parts a form may have in all, and text fields among them: our forms send a handful. */
const MAX_PARTS = 100;
const MAX_FIELDS = 50;
const tooManyParts = (max: number, what: 'parts' | 'fields' = 'parts') =>
  new AppError('payload_too_large', what === 'parts' ? 'upload_too_many_parts' : 'upload_too_many_fields', { max }, { Connection: 'close' });
const toMb = (bytes: number) => Math.round((bytes / MB) * 10) / 10;

class PartTooLarge extends Error {
  constructor(readonly limit: number) {
    super('part too large');
  }
}

/** A part's bytes as UTF-8 text when it holds at most `max` bytes; longer, it is drained and undefined. */
function readSmallPart(stream: Readable, max: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
    });
    stream.once('end', () => resolve(size <= max ? Buffer.concat(chunks).toString('utf8') : undefined));
    stream.once('error', () => resolve(undefined));
  });
}

export async function receiveMultipart(req: Request, opts: ReceiveOptions): Promise<Received> {
  const type = req.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data/i.test(type)) throw unsupportedMediaType('expected_multipart');
  const largest = Math.max(0, ...Object.values(opts.files));
  const declared = Number(req.headers.get('content-length') ?? NaN);
  // An honest client that declares too much is refused before a byte is read.
  if (Number.isFinite(declared) && declared > largest + MB) throw payloadTooLarge(toMb(largest));
  if (!req.body) throw badRequest('expected_multipart');

  mkdirSync(opts.dir, { recursive: true });
  const files: Record<string, ReceivedFile> = {};
  const fields: Record<string, string> = {};
  const written: string[] = [];
  const writes: Promise<void>[] = [];
  const discard = async () => {
    await Promise.all(written.map((p) => rm(p, { force: true })));
  };

  const source = Readable.fromWeb(req.body as unknown as WebReadableStream);
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': type },
      // Browsers and fetch's FormData write a file name's UTF-8 bytes as they are (busboy reads them as latin1 by default: `поле.tif` became `Ð¿Ð¾Ð»Ðµ.tif`).
      defParamCharset: 'utf8',
      limits: { fieldSize: opts.maxFieldBytes ?? MB, fields: MAX_FIELDS, files: Object.keys(opts.files).length + 20, parts: MAX_PARTS },
    });
  } catch {
    throw badRequest('expected_multipart');
  }

  const done = new Promise<void>((resolve, reject) => {
    let failed = false;
    // The file parts being written: a failure must end them too, or their pipelines (which the
    // clean-up awaits) would wait forever for bytes that will never come.
    const parts = new Set<Readable>();
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      clearTimeout(idle);
      source.unpipe(parser);
      // Drained, not destroyed: destroying cancels the request's body stream while Next.js still
      // feeds it from the socket, and its next write threw an uncaught ERR_INVALID_STATE. The answer
      // goes out with `Connection: close`, which ends the socket and the draining with it.
      source.resume();
      for (const part of parts) part.destroy();
      reject(err);
    };
    let idle: NodeJS.Timeout | undefined;
    const idleMs = opts.idleTimeoutMs ?? config().UPLOAD_IDLE_TIMEOUT_S * 1000;
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => fail(requestTimeout()), idleMs);
    };
    touch();
    source.on('data', touch);
    source.on('error', (err) => fail(err instanceof AppError ? err : clientClosed()));

    parser.on('field', (name, value, info) => {
      // A file sent without a file name (`curl -F raster_file=<ndvi.tif`) arrives as text: said so,
      // rather than "no part named" or a 1 MB limit that is not the file's.
      if (opts.files[name] !== undefined) return fail(unprocessable('upload_part_not_file', { part: name }));
      if (info.valueTruncated) return fail(payloadTooLarge(toMb(opts.maxFieldBytes ?? MB)));
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      const limit = opts.files[name];
      if (limit === undefined && !files[name] && fields[name] === undefined) {
        // A text part sent as a file (`curl -F data=@data.json`) is read as the text it holds.
        writes.push(readSmallPart(stream, opts.maxFieldBytes ?? MB).then((text) => void (text !== undefined && (fields[name] ??= text))));
        return;
      }
      if (limit === undefined || files[name]) {
        stream.resume(); // not ours (or a second copy): drain it
        return;
      }
      const path = join(opts.dir, `${Date.now()}-${randomBytes(6).toString('hex')}.part`);
      written.push(path);
      parts.add(stream);
      stream.once('close', () => parts.delete(stream));
      const hash = createHash('sha256');
      let size = 0;
      const meter = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          size += chunk.length;
          if (size > limit) return cb(new PartTooLarge(limit));
          hash.update(chunk);
          cb(null, chunk);
        },
      });
      const file: ReceivedFile = { part: name, filename: info.filename ?? '', path, size: 0, sha256: '', mimeType: info.mimeType };
      files[name] = file;
      writes.push(
        pipeline(stream, meter, createWriteStream(path)).then(
          () => {
            file.size = size;
            file.sha256 = hash.digest('hex');
          },
          (err: NodeJS.ErrnoException) => {
            const mapped =
              err instanceof PartTooLarge
                ? payloadTooLarge(toMb(err.limit))
                : isDiskFull(err)
                  ? insufficientStorage()
                  : err instanceof AppError
                    ? err
                    : new AppError('bad_request', 'upload_aborted');
            fail(mapped);
            throw mapped;
          },
        ),
      );
    });
    // Too many parts is not too many bytes: said as what it is (it had answered "larger than 1024 MB").
    parser.on('partsLimit', () => fail(tooManyParts(MAX_PARTS)));
    parser.on('fieldsLimit', () => fail(tooManyParts(MAX_FIELDS, 'fields')));
    // The type was right and the body is not (a part header that is no header, the form's end missing).
    parser.on('error', () => fail(badRequest('upload_malformed')));
    parser.on('close', () => {
      clearTimeout(idle);
      Promise.all(writes).then(() => !failed && resolve(), fail);
    });
    source.pipe(parser);
  });

  try {
    await done;
  } catch (err) {
    await Promise.allSettled(writes);
    await discard();
    throw err;
  }
  return { files, fields, discard };
}
