// Typed errors, thrown by every layer. Each carries its kind, a message key (translated into the
// caller's language when answered) and its parameters; lib/http/respond.ts (`errorResponse`, with the
// statuses of lib/http/errors.ts) is the one place that turns them into answers.

export type ErrorKind =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'timeout'
  | 'client_closed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unprocessable'
  | 'rate_limited'
  | 'unavailable'
  | 'insufficient_storage'
  | 'internal';

export type MessageParams = Record<string, string | number>;

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    /** Key under `errors.` in messages/*.json. */
    readonly key: string,
    readonly params: MessageParams = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(`${kind}: ${key}${Object.keys(params).length ? ' ' + JSON.stringify(params) : ''}`);
    this.name = 'AppError';
  }
}

/**
 * Whether `err` is an AppError. By its name as well as its class: a job's code runs in a worker thread
 * (and the Next.js bundle holds its own copy of this module), so the class there is not this one.
 */
export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError || (err instanceof Error && err.name === 'AppError' && typeof (err as AppError).key === 'string');
}

export const badRequest = (key: string, params?: MessageParams) => new AppError('bad_request', key, params);
// RFC 9110 requires a 401 to name its scheme; RFC 6750 says how a token that no longer holds is told apart.
export const unauthorized = (key = 'unauthorized') =>
  new AppError('unauthorized', key, {}, { 'WWW-Authenticate': key === 'session_invalid' ? 'Bearer realm="fieldmap", error="invalid_token"' : 'Bearer realm="fieldmap"' });
export const forbidden = (key = 'forbidden', params?: MessageParams) => new AppError('forbidden', key, params);
export const notFound = (key = 'not_found') => new AppError('not_found', key);
export const conflict = (key: string, params?: MessageParams) => new AppError('conflict', key, params);
export const unprocessable = (key: string, params?: MessageParams) => new AppError('unprocessable', key, params);
// The rest of a refused body is never read: the connection must close so no client reuses it.
export const payloadTooLarge = (limitMb: number) => new AppError('payload_too_large', 'payload_too_large', { limit: limitMb }, { Connection: 'close' });
export const unsupportedMediaType = (key: string, params?: MessageParams) =>
  new AppError('unsupported_media_type', key, params);
export const rateLimited = (retryAfterSeconds: number) =>
  new AppError('rate_limited', 'rate_limited', { seconds: retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
export const requestTimeout = (key = 'upload_timeout') => new AppError('timeout', key, {}, { Connection: 'close' });
/** The client went away before its request's body had arrived: not the server's fault, nor an error to log as one. */
export const clientClosed = () => new AppError('client_closed', 'upload_aborted');
export const insufficientStorage = () => new AppError('insufficient_storage', 'insufficient_storage');
/**
 * A write that failed because the disk or the quota is full: the server's problem (507), whatever was
 * being written. A program we run (GDAL) says so only in its message.
 */
export const isDiskFull = (err: unknown) =>
  ['ENOSPC', 'EDQUOT'].includes((err as NodeJS.ErrnoException)?.code ?? '') || /No space left on device|Disk quota exceeded/.test(String((err as Error)?.message ?? ''));

/** Redis, which carries the task queue in the scale-out setup, did not answer in time. */
export const queueUnavailable = () => new AppError('unavailable', 'queue_unavailable', {}, { 'Retry-After': '60' });

/**
 * A feature whose program is missing on this machine (lib/capabilities.ts), the package to install
 * named. Answered before the body is read, so the connection closes as for a 413.
 */
export const featureUnavailable = (feature: string, debianPackage: string) =>
  new AppError('unavailable', `${feature}_unavailable`, { package: debianPackage }, { Connection: 'close' });

/** The database kept its write lock for another change longer than a request waits (SQLite's single writer). */
export const databaseBusy = () => new AppError('unavailable', 'database_busy', {}, { 'Retry-After': '5' });

/** Prisma's known request errors that mean "not there", "already there" or "busy, try again". */
export function fromPrismaError(err: unknown): AppError | undefined {
  const code = (err as { code?: unknown })?.code;
  // P1008: SQLite stayed locked for the whole wait; P2028: a transaction could not start in time.
  if (code === 'P1008' || code === 'P2028') return databaseBusy();
  if (code === 'P2025') return notFound();
  if (code === 'P2002') return conflict('duplicate');
  if (code === 'P2003') return unprocessable('reference_missing');
  return undefined;
}
