// Response envelopes (spec 7) and the one mapping from errors to HTTP.
import { create as contentDisposition } from 'content-disposition';
import { NextResponse } from 'next/server';
import { AppError, fromPrismaError } from '../errors';
import { HTTP_STATUS } from './errors';
import { asciiFileName, safeFileName } from '../file-names';
import { ValidationError, describeIssue } from './validate';
import { translate } from '../i18n/messages';
import type { Locale } from '../i18n/locales';
import type { Logger } from '../log';

export function json(data: unknown, init: ResponseInit = {}): NextResponse {
  return NextResponse.json(data, init);
}

/** An answer whose JSON text is already written (`json` would parse nothing but serialise it all). */
export function jsonText(text: string, init: ResponseInit = {}): NextResponse {
  return new NextResponse(text, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
}

/**
 * Where a download's size rides past Next.js, which drops a route's Content-Length (the body may be
 * one it fetched and decoded); the web process (lib/server/web.mjs, which names it too) sends it as
 * Content-Length, so that the browser shows how much of a large file is left.
 */
const DOWNLOAD_SIZE_HEADER = 'x-fieldmap-download-size';

/** A file to save (KMZ, ZIP, PDF, GeoTIFF) under `name`, sized when its size is known. */
export function fileResponse(body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>, file: { name: string; type: string; size?: number }, headers: Record<string, string> = {}): Response {
  const size = file.size ?? (body instanceof Uint8Array ? body.byteLength : undefined);
  return new Response(body, {
    headers: {
      'content-type': file.type,
      // RFC 6266: the name in UTF-8 (`filename*`, encoded as RFC 8187 says) and in ASCII for older clients.
      'content-disposition': contentDisposition(safeFileName(file.name), { fallback: asciiFileName(safeFileName(file.name)) }),
      ...(size === undefined ? {} : { [DOWNLOAD_SIZE_HEADER]: String(size) }),
      ...headers,
    },
  });
}

/** `{success:true, ...data}` */
export function ok(data: Record<string, unknown> = {}, init: ResponseInit = {}): NextResponse {
  return NextResponse.json({ success: true, ...data }, init);
}

/** 201 `{success:true, id}`, with the new record's address in `Location` (RFC 9110 15.3.2). */
export function created(id: number, collectionPath: string): NextResponse {
  return ok({ id }, { status: 201, headers: { Location: `${collectionPath}/${id}` } });
}

export function errorBody(err: AppError, locale: Locale): { success: false; error: string; details?: string[] } {
  if (err instanceof ValidationError) {
    const details = err.issues.map((i) => describeIssue(i, locale));
    return { success: false, error: translate(locale, 'errors.validation', { details: details.join('; ') }), details };
  }
  return { success: false, error: translate(locale, `errors.${err.key}`, err.params) };
}

/** Any thrown value becomes `{success:false, error}` with its status; unknown errors are logged, never shown. */
export function errorResponse(thrown: unknown, locale: Locale, requestId: string, log: Logger): NextResponse {
  const err = thrown instanceof AppError ? thrown : fromPrismaError(thrown);
  if (err) {
    const status = HTTP_STATUS[err.kind];
    if (status >= 500) log.error({ err: thrown }, 'request failed');
    return NextResponse.json(errorBody(err, locale), { status, headers: err.headers });
  }
  log.error({ err: thrown }, 'unhandled error');
  return NextResponse.json(
    { success: false, error: translate(locale, 'errors.internal', { requestId }) },
    { status: 500 },
  );
}
