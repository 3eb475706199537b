// Parsing request bodies and query strings with zod, answering in the caller's language.
import type { z } from 'zod';
import { AppError, badRequest, clientClosed, notFound, payloadTooLarge, requestTimeout, unprocessable, unsupportedMediaType } from '../errors';
import { config } from '../config';
import { translate } from '../i18n/messages';
import type { Locale } from '../i18n/locales';
import { MAX_RECORD_ID } from './record-id';

type Issue = z.core.$ZodIssue;

/** Zod's name of a JSON type in the caller's language (`string` is "text"), or as it is. */
function typeName(type: string, locale: Locale): string {
  const key = `validation.types.${type}`;
  const name = translate(locale, key);
  return name === key ? type : name;
}

/** One issue in words: `path: what is wrong`. */
export function describeIssue(issue: Issue, locale: Locale): string {
  const path = issue.path.length ? issue.path.join('.') : '';
  const t = (key: string, params: Record<string, string | number> = {}) => translate(locale, `validation.${key}`, params);
  let text: string;
  switch (issue.code) {
    case 'invalid_type':
      text = issue.input === undefined ? t('required') : t('invalid_type', { expected: typeName(issue.expected, locale) });
      break;
    case 'too_small': {
      const minimum = Number(issue.minimum);
      text = ['string', 'array'].includes(issue.origin) ? t(`too_small_${issue.origin}`, { minimum }) : t(issue.inclusive === false ? 'more_than_number' : 'too_small_number', { minimum });
      break;
    }
    case 'too_big': {
      const maximum = Number(issue.maximum);
      text = ['string', 'array'].includes(issue.origin) ? t(`too_big_${issue.origin}`, { maximum }) : t(issue.inclusive === false ? 'less_than_number' : 'too_big_number', { maximum });
      break;
    }
    case 'invalid_value':
      text = t('invalid_value', { values: issue.values.map(String).join(', ') });
      break;
    case 'invalid_format':
      text = issue.format === 'email' ? t('invalid_email') : t('invalid_format');
      break;
    case 'unrecognized_keys':
      text = t('unrecognized_keys', { keys: issue.keys.join(', ') });
      break;
    case 'custom':
      // Custom checks carry a message key under `validation.` (and its params) in `params`.
      text = issue.params?.key ? t(String(issue.params.key), issue.params as Record<string, string | number>) : issue.message;
      break;
    default:
      text = t('invalid');
  }
  return path ? `${path}: ${text}` : text;
}

export class ValidationError extends AppError {
  constructor(readonly issues: Issue[]) {
    super('unprocessable', 'validation', {});
  }
}

export function validate<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  // The input rides on each issue so that a value of the wrong type is told apart from a missing one
  // (zod 4 leaves it off unless asked).
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw new ValidationError(result.error.issues);
  return result.data;
}

// With the u flag a pair is one code point, so only a surrogate without its partner matches.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Refuses (422) a value any string of which, or any key, the databases cannot store as sent: a NUL
 * character (PostgreSQL text cannot hold one) or an unpaired surrogate (JSON's `"\ud800"`, which is
 * no character: it was stored as U+FFFD). Walked with a stack, not recursion nor argument spreading:
 * JSON nested 200,000 deep parses, and recursing over it (or spreading a huge array) overflowed.
 */
export function refuseUnstorableText(value: unknown): void {
  const pending: unknown[] = [value];
  const check = (text: string) => {
    if (text.includes('\u0000')) throw unprocessable('text_nul');
    if (LONE_SURROGATE.test(text)) throw unprocessable('text_unpaired_surrogate');
  };
  // Strings are checked where they are met and only containers are stacked: a million-element array is one pass.
  const visit = (item: unknown) => {
    if (typeof item === 'string') check(item);
    else if (item !== null && typeof item === 'object') pending.push(item);
  };
  while (pending.length) {
    const v = pending.pop();
    if (typeof v === 'string') check(v);
    else if (Array.isArray(v)) {
      // One element at a time: spreading a 125,000-element array into push() overflowed the stack.
      for (let i = 0; i < v.length; i++) visit(v[i]);
    } else if (v !== null && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        check(k);
        visit((v as Record<string, unknown>)[k]);
      }
    }
  }
}

/**
 * The largest JSON body taken: a field of 100,000 vertices written out in full is about 5 MB.
 * Bodies are refused as soon as they pass it (or say they will), not read whole first.
 */
export const MAX_JSON_MB = 16;

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

async function readBodyText(req: Request): Promise<string> {
  const limit = MAX_JSON_MB * 1024 * 1024;
  if (Number(req.headers.get('content-length')) > limit) throw payloadTooLarge(MAX_JSON_MB);
  if (!req.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  // As `for await` reads it, with a deadline on each chunk; return() ends the iteration as a `for await` left early would.
  const chunksOf = (req.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  try {
    for (;;) {
      const { done, value } = await readWithin(chunksOf.next(), config().UPLOAD_IDLE_TIMEOUT_S * 1000);
      if (done) break;
      size += value.byteLength;
      if (size > limit) throw payloadTooLarge(MAX_JSON_MB);
      chunks.push(value);
    }
  } finally {
    // Not awaited: after a 408 it waits for the read still pending, which ends with the connection.
    chunksOf.return?.().catch(() => undefined);
  }
  // Bytes that are not UTF-8 are refused, not stored as U+FFFD; a leading BOM is dropped (RFC 8259 8.1 allows ignoring it).
  try {
    return STRICT_UTF8.decode(Buffer.concat(chunks));
  } catch {
    throw badRequest('invalid_json');
  }
}

/**
 * The body's next chunk: 408 when none comes for `idleMs` (a body that stops midway was held for
 * REQUEST_TIMEOUT_S, 4 h, on login too), 499 when the client went away. The read left pending is not
 * cancelled: cancelling the body Next.js still feeds from the socket throws there; the 408 closes it.
 */
async function readWithin(read: Promise<IteratorResult<Uint8Array>>, idleMs: number): Promise<IteratorResult<Uint8Array>> {
  let timer: NodeJS.Timeout | undefined;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(requestTimeout('body_timeout')), idleMs);
  });
  read.catch(() => undefined);
  try {
    return await Promise.race([read, idle]);
  } catch (err) {
    throw err instanceof AppError ? err : clientClosed();
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads a JSON body: another content type is 415, a body over MAX_JSON_MB 413, unparsable JSON 400,
 * and a body of the wrong shape 422.
 */
export async function readJson<S extends z.ZodType>(req: Request, schema: S): Promise<z.infer<S>> {
  const type = req.headers.get('content-type') ?? '';
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) throw unsupportedMediaType('expected_json');
  const text = await readBodyText(req);
  let body: unknown;
  try {
    body = text.length ? JSON.parse(text) : undefined;
  } catch {
    throw badRequest('invalid_json');
  }
  refuseUnstorableText(body);
  return validate(schema, body ?? {});
}

/** A query string's parameters; one left empty (`owner_id=`, as a form sends an unset filter) is not given. */
export function readQuery<S extends z.ZodType>(url: URL, schema: S): z.infer<S> {
  const query = Object.fromEntries([...url.searchParams].filter(([, v]) => v !== ''));
  refuseUnstorableText(query);
  return validate(schema, query);
}

/** A numeric id from the path; anything else is simply not found. */
export function pathId(value: string | string[] | undefined): number {
  const n = typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_RECORD_ID) throw notFound();
  return n;
}
