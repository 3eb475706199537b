// Row ids as clients send them. PostgreSQL's `integer` ends at 2^31-1, and a larger id reached the
// database there (a 500); SQLite takes more, but one rule holds for both.
import { z } from 'zod';

export const MAX_RECORD_ID = 2 ** 31 - 1;

// The range first, and alone when it fails: zod's integer check has a range of its own (2^53), and
// 1e30 was "at most 9007199254740991; at most 2147483647".
/** An id in a JSON body. */
export const recordId = z.number().positive().max(MAX_RECORD_ID, { abort: true }).int();

/**
 * An id in a query string or a multipart part: decimal digits only, as ids are written. Number()
 * alone took `0x1`, `1e0`, `1.0` and ` 1` for 1, so a client's mangled id found another record.
 */
export const recordIdText = z
  .string()
  .refine((s) => /^\d+$/.test(s), { params: { key: 'record_id' }, abort: true })
  .transform(Number)
  .pipe(recordId);
