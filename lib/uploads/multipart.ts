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

/** What an upload has received so far; every path in `written` is removed again when it fails. */
interface UploadState {
  files: Record<string, ReceivedFile>;
  fields: Record<string, string>;
  written: string[];
  writes: Promise<void>[];
  /** The file parts being written: a failure must end them too, or their pipelines (which the
   *  clean-up awaits) would wait forever for bytes that will never come. */
  parts: Set<Readable>;
}

/** An upload being received: its state, its options, and how it ends (the first failure wins). */
interface Upload extends UploadState {
  opts: ReceiveOptions;
  fail(err: unknown): void;
}

/** The form's content type and body, refused before a byte is read when it cannot be one we take. */
function formRequest(req: Request, opts: ReceiveOptions): { type: string; body: ReadableStream<Uint8Array> } {
  const type = req.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data/i.test(type)) throw unsupportedMediaType('expected_multipart');
  const largest = Math.max(0, ...Object.values(opts.files));
  const declared = Number(req.headers.get('content-length') ?? NaN);
  // An honest client that declares too much is refused before a byte is read.
  if (Number.isFinite(declared) && declared > largest + MB) throw payloadTooLarge(toMb(largest));
  if (!req.body) throw badRequest('expected_multipart');
  return { type, body: req.body };
}

function formParser(type: string, opts: ReceiveOptions): busboy.Busboy {
  try {
    return busboy({
      headers: { 'content-type': type },
      // Browsers and fetch's FormData write a file name's UTF-8 bytes as they are (busboy reads them as latin1 by default: `поле.tif` became `Ð¿Ð¾Ð»Ðµ.tif`).
      defParamCharset: 'utf8',
      limits: { fieldSize: opts.maxFieldBytes ?? MB, fields: MAX_FIELDS, files: Object.keys(opts.files).length + 20, parts: MAX_PARTS },
    });
  } catch {
    throw badRequest('expected_multipart');
  }
}

/** A timer that calls `onIdle` once `ms` pass without a `touch()`. */
function idleTimer(ms: number, onIdle: () => void): { touch(): void; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  const stop = () => clearTimeout(timer);
  const touch = () => {
    stop();
    timer = setTimeout(onIdle, ms);
  };
  return { touch, stop };
}

/** Stops reading the request after a failure, and ends the file parts still being written. */
function stopReading(source: Readable, parser: busboy.Busboy, parts: Set<Readable>): void {
  source.unpipe(parser);
  // Drained, not destroyed: destroying cancels the request's body stream while Next.js still
  // feeds it from the socket, and its next write threw an uncaught ERR_INVALID_STATE. The answer
  // goes out with `Connection: close`, which ends the socket and the draining with it.
  source.resume();
  for (const part of parts) part.destroy();
}

/** Feeds the request to the parser; settles once every part is written, or at the first failure. */
function receiveParts(source: Readable, parser: busboy.Busboy, state: UploadState, opts: ReceiveOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let failed = false;
    const idle = idleTimer(opts.idleTimeoutMs ?? config().UPLOAD_IDLE_TIMEOUT_S * 1000, () => fail(requestTimeout()));
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      idle.stop();
      stopReading(source, parser, state.parts);
      reject(err);
    };
    idle.touch();
    source.on('data', idle.touch);
    source.on('error', (err) => fail(err instanceof AppError ? err : clientClosed()));
    listenToParts(parser, { ...state, opts, fail });
    parser.on('close', () => {
      idle.stop();
      Promise.all(state.writes).then(() => !failed && resolve(), fail);
    });
    source.pipe(parser);
  });
}

function listenToParts(parser: busboy.Busboy, upload: Upload): void {
  parser.on('field', (name, value, info) => receiveField(upload, name, value, info));
  parser.on('file', (name, stream, info) => receiveFile(upload, name, stream, info));
  // Too many parts is not too many bytes: said as what it is (it had answered "larger than 1024 MB").
  parser.on('partsLimit', () => upload.fail(tooManyParts(MAX_PARTS)));
  parser.on('fieldsLimit', () => upload.fail(tooManyParts(MAX_FIELDS, 'fields')));
  // The type was right and the body is not (a part header that is no header, the form's end missing).
  parser.on('error', () => upload.fail(badRequest('upload_malformed')));
}

function receiveField(upload: Upload, name: string, value: string, info: busboy.FieldInfo): void {
  // A file sent without a file name (`curl -F raster_file=<ndvi.tif`) arrives as text: said so,
  // rather than "no part named" or a 1 MB limit that is not the file's.
  if (upload.opts.files[name] !== undefined) return upload.fail(unprocessable('upload_part_not_file', { part: name }));
  if (info.valueTruncated) return upload.fail(payloadTooLarge(toMb(upload.opts.maxFieldBytes ?? MB)));
  upload.fields[name] = value;
}

function receiveFile(upload: Upload, name: string, stream: Readable, info: busboy.FileInfo): void {
  const limit = upload.opts.files[name];
  if (limit === undefined && !upload.files[name] && upload.fields[name] === undefined) {
    // A text part sent as a file (`curl -F data=@data.json`) is read as the text it holds.
    upload.writes.push(readSmallPart(stream, upload.opts.maxFieldBytes ?? MB).then((text) => void (text !== undefined && (upload.fields[name] ??= text))));
    return;
  }
  if (limit === undefined || upload.files[name]) {
    stream.resume(); // not ours (or a second copy): drain it
    return;
  }
  upload.writes.push(writeFilePart(upload, name, limit, stream, info));
}

/** Passes a part's bytes on, counting and hashing them; past `limit` bytes it fails with PartTooLarge. */
function partMeter(limit: number): { meter: Transform; measured(): { size: number; sha256: string } } {
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
  return { meter, measured: () => ({ size, sha256: hash.digest('hex') }) };
}

/** Writes a file part to a new file in the folder; a failure ends the whole upload. */
function writeFilePart(upload: Upload, name: string, limit: number, stream: Readable, info: busboy.FileInfo): Promise<void> {
  const path = join(upload.opts.dir, `${Date.now()}-${randomBytes(6).toString('hex')}.part`);
  upload.written.push(path);
  upload.parts.add(stream);
  stream.once('close', () => upload.parts.delete(stream));
  const { meter, measured } = partMeter(limit);
  const file: ReceivedFile = { part: name, filename: info.filename ?? '', path, size: 0, sha256: '', mimeType: info.mimeType };
  upload.files[name] = file;
  return pipeline(stream, meter, createWriteStream(path)).then(
    () => void Object.assign(file, measured()),
    (err: NodeJS.ErrnoException) => {
      const mapped = writeError(err);
      upload.fail(mapped);
      throw mapped;
    },
  );
}

/** A failed file write as what the client is told. */
function writeError(err: NodeJS.ErrnoException): AppError {
  if (err instanceof PartTooLarge) return payloadTooLarge(toMb(err.limit));
  if (isDiskFull(err)) return insufficientStorage();
  if (err instanceof AppError) return err;
  return new AppError('bad_request', 'upload_aborted');
}

export async function receiveMultipart(req: Request, opts: ReceiveOptions): Promise<Received> {
  const { type, body } = formRequest(req, opts);
  mkdirSync(opts.dir, { recursive: true });
  const state: UploadState = { files: {}, fields: {}, written: [], writes: [], parts: new Set() };
  const discard = async () => {
    await Promise.all(state.written.map((p) => rm(p, { force: true })));
  };
  const source = Readable.fromWeb(body as unknown as WebReadableStream);
  const parser = formParser(type, opts);
  try {
    await receiveParts(source, parser, state, opts);
  } catch (err) {
    await Promise.allSettled(state.writes);
    await discard();
    throw err;
  }
  return { files: state.files, fields: state.fields, discard };
}
