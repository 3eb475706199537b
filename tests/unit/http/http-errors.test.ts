import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError, type ErrorKind, fromPrismaError, isAppError } from '@/lib/errors';
import { HTTP_STATUS } from '@/lib/http/errors';
import { errorResponse } from '@/lib/http/respond';
import { type ValidationError, describeIssue, readJson, validate } from '@/lib/http/validate';
import { log } from '@/lib/log';

const silent = log.child({});
silent.level = 'silent';

describe('isAppError', () => {
  it('knows an AppError by its class, and one of another copy of the module by its name and key', () => {
    expect(isAppError(new AppError('unprocessable', 'zip_corrupt'))).toBe(true);
    const fromAnotherCopy = Object.assign(new Error('unprocessable: zip_corrupt'), { name: 'AppError', key: 'zip_corrupt', params: {} });
    expect(isAppError(fromAnotherCopy)).toBe(true);
    expect(isAppError(new Error('boom'))).toBe(false);
    expect(isAppError(Object.assign(new Error('x'), { name: 'AppError' }))).toBe(false);
    expect(isAppError({ name: 'AppError', key: 'zip_corrupt' })).toBe(false);
  });
});

describe('error mapping', () => {
  const expected: Record<ErrorKind, number> = {
    bad_request: 400,
    unauthorized: 401,
    forbidden: 403,
    not_found: 404,
    method_not_allowed: 405,
    timeout: 408,
    client_closed: 499,
    conflict: 409,
    payload_too_large: 413,
    unsupported_media_type: 415,
    unprocessable: 422,
    rate_limited: 429,
    internal: 500,
    unavailable: 503,
    insufficient_storage: 507,
  };

  for (const [kind, status] of Object.entries(expected) as [ErrorKind, number][]) {
    it(`${kind} answers ${status} with the failure envelope`, async () => {
      expect(HTTP_STATUS[kind]).toBe(status);
      const res = errorResponse(new AppError(kind, 'not_found'), 'en', 'rid', silent);
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ success: false, error: 'Not found' });
    });
  }

  it('translates the message into the caller language', async () => {
    const err = new AppError('payload_too_large', 'payload_too_large', { limit: 50 });
    expect((await errorResponse(err, 'ru', 'r', silent).json()).error).toBe('Размер запроса превышает допустимые 50 МБ');
    expect((await errorResponse(err, 'sk', 'r', silent).json()).error).toBe('Požiadavka je väčšia ako povolených 50 MB');
  });

  it('puts Retry-After on 429', () => {
    const res = errorResponse(new AppError('rate_limited', 'rate_limited', { seconds: 7 }, { 'Retry-After': '7' }), 'en', 'r', silent);
    expect(res.headers.get('retry-after')).toBe('7');
  });

  it('hides unknown errors behind a 500 that names the request id, not the stack', async () => {
    const res = errorResponse(new Error('secret database detail at /srv/x.ts:12'), 'en', 'req-42', silent);
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body.success).toBe(false);
    expect(body.error).toContain('req-42');
    expect(JSON.stringify(body)).not.toContain('secret');
  });

  it('maps Prisma not-found and unique violations', () => {
    expect(fromPrismaError({ code: 'P2025' })?.kind).toBe('not_found');
    expect(fromPrismaError({ code: 'P2002' })?.kind).toBe('conflict');
    expect(fromPrismaError(new Error('x'))).toBeUndefined();
  });

  it('answers a database that stayed locked with 503, Retry-After and words in the user language', async () => {
    const res = errorResponse({ code: 'P1008', message: 'Operation has timed out' }, 'sk', 'req-1', silent);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect((await res.json()).error).toMatch(/Databáza je zaneprázdnená/);
  });
});

describe('request validation', () => {
  const schema = z.object({ name: z.string().min(2), size: z.number().max(10) });
  const request = (body: string, type = 'application/json') =>
    new Request('http://x/', { method: 'POST', body, headers: { 'content-type': type } });

  it('answers 400 for malformed JSON before any handler code runs', async () => {
    await expect(readJson(request('{"name": '), schema)).rejects.toMatchObject({ kind: 'bad_request', key: 'invalid_json' });
  });

  it('refuses bytes that are not UTF-8 (400) rather than storing U+FFFD, and ignores a leading BOM', async () => {
    const latin1 = new Request('http://x/', { method: 'POST', body: Buffer.from('{"name":"Caf\xe9"}', 'latin1'), headers: { 'content-type': 'application/json; charset=iso-8859-1' } });
    await expect(readJson(latin1, schema)).rejects.toMatchObject({ kind: 'bad_request', key: 'invalid_json' });
    await expect(readJson(request('\ufeff{"name":"Поле","size":1}'), schema)).resolves.toEqual({ name: 'Поле', size: 1 });
  });

  it('refuses an unpaired surrogate escape (422), which is no character, and takes a pair written as escapes', async () => {
    await expect(readJson(request('{"name":"a\\ud800b","size":1}'), schema)).rejects.toMatchObject({ kind: 'unprocessable', key: 'text_unpaired_surrogate' });
    await expect(readJson(request('{"name":"x","size":1,"\\udfff":1}'), schema)).rejects.toMatchObject({ key: 'text_unpaired_surrogate' });
    await expect(readJson(request('{"name":"\\ud83c\\udf3e Поле","size":1}'), schema)).resolves.toEqual({ name: '🌾 Поле', size: 1 });
  });

  it('answers 415 when the body is not JSON at all', async () => {
    await expect(readJson(request('name=x', 'application/x-www-form-urlencoded'), schema)).rejects.toMatchObject({ kind: 'unsupported_media_type', key: 'expected_json' });
  });

  it('walks JSON nested 50,000 deep without overflowing the stack', async () => {
    const deep = `{"name": ${'['.repeat(50_000)}"a\\u0000"${']'.repeat(50_000)}}`;
    await expect(readJson(request(deep), schema)).rejects.toMatchObject({ kind: 'unprocessable', key: 'text_nul' });
    const clean = `{"name": ${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
    await expect(readJson(request(clean), schema)).rejects.toMatchObject({ kind: 'unprocessable', key: 'validation' });
  });

  it('refuses a JSON body over the limit with 413, whether its length is declared or not', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(17 * 1024 * 1024) });
    await expect(readJson(request(big), schema)).rejects.toMatchObject({ kind: 'payload_too_large', params: { limit: 16 } });
    const declared = new Request('http://x/', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', 'content-length': String(10 * 1024 ** 3) } });
    await expect(readJson(declared, schema)).rejects.toMatchObject({ kind: 'payload_too_large' });
  });

  it('answers 422 naming each wrong field, in the caller language', async () => {
    let caught: unknown;
    try {
      validate(schema, { name: 'a', size: 11 });
    } catch (e) {
      caught = e;
    }
    const res = errorResponse(caught, 'en', 'r', silent);
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body.error).toBe('Invalid data: name: at least 2 characters; size: at most 10');
    const ru = await errorResponse(caught, 'ru', 'r', silent).json();
    expect(ru.error).toContain('name: не короче 2 символов');
    // Plurals as each language counts, and a strict minimum said as one.
    const issues = (input: unknown, locale: 'en' | 'ru' | 'sk') => {
      try {
        validate(z.object({ name: z.string().min(1), tags: z.array(z.string()).min(1), n: z.number().positive() }), input);
      } catch (e) {
        return (e as ValidationError).issues.map((i) => describeIssue(i, locale));
      }
      return [];
    };
    expect(issues({ name: '', tags: [], n: 0 }, 'en')).toEqual(['name: at least 1 character', 'tags: at least 1 item', 'n: more than 0']);
    expect(issues({ name: '', tags: [], n: 0 }, 'ru')).toEqual(['name: не короче 1 символа', 'tags: не меньше 1 элемента', 'n: больше 0']);
    expect(issues({ name: '', tags: [], n: 0 }, 'sk')).toEqual(['name: aspoň 1 znak', 'tags: aspoň 1 položka', 'n: viac ako 0']);
    expect(describeIssue({ code: 'too_small', origin: 'string', minimum: 5, inclusive: true, path: [], message: '', input: '' }, 'sk')).toBe('aspoň 5 znakov');
    expect(describeIssue({ code: 'too_small', origin: 'string', minimum: 3, inclusive: true, path: [], message: '', input: '' }, 'ru')).toBe('не короче 3 символов');
  });

  it('says which field is missing', async () => {
    let caught: unknown;
    try {
      validate(schema, { size: 1 });
    } catch (e) {
      caught = e;
    }
    expect((await errorResponse(caught, 'sk', 'r', silent).json()).error).toContain('name: povinné pole');
  });

  it('tells a value of the wrong type from a missing one, naming the type in the language', async () => {
    const said = async (input: unknown, locale: 'en' | 'ru' | 'sk') => {
      try {
        validate(schema, input);
      } catch (e) {
        return (await errorResponse(e, locale, 'r', silent).json()).error as string;
      }
      throw new Error('accepted');
    };
    expect(await said({ name: 5, size: 1 }, 'en')).toBe('Invalid data: name: expected text');
    expect(await said({ name: 'ok', size: '3' }, 'ru')).toContain('size: ожидается число');
    expect(await said({ name: null, size: 1 }, 'sk')).toContain('name: očakáva sa text');
  });
});
