// The HTTP status of each error kind (lib/errors.ts); lib/http/respond.ts is the one place that uses it.
import type { ErrorKind } from '../errors';

export const HTTP_STATUS: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  timeout: 408,
  // nginx's "client closed request": no one reads it, but the request's log line says what happened.
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

