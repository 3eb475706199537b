// Row ids as clients send them. PostgreSQL's `integer` ends at 2^31-1, and a larger id reached the
// database there (a 500); SQLite takes more, but one rule holds for both.
import { z } from 'zod';

export const MAX_RECORD_ID = 2 ** 31 - 1;

/** An id in a JSON body. */
export const recordId = z.number().int().positive().max(MAX_RECORD_ID);

/** An id in a query string or a multipart part. */
export const recordIdText = z.coerce.number().int().positive().max(MAX_RECORD_ID);
