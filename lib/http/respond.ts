// Response envelopes (spec 7) and the one mapping from errors to HTTP.
import { NextResponse } from 'next/server';
import { AppError, HTTP_STATUS, fromPrismaError } from './errors';
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

/** `{success:true, ...data}` */
export function ok(data: Record<string, unknown> = {}, init: ResponseInit = {}): NextResponse {
  return NextResponse.json({ success: true, ...data }, init);
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
