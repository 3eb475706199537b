// One web process of the server (lib/server/cluster.ts): Next.js's request handler on Node's HTTP
// server, as `next start` runs it, with answers compressed here instead of by Next.js. Next.js
// compresses at zlib's level 6 and a route handler cannot send its own encoding, so the full fields
// list (32 MB for 10,000 fields) spent a second in gzip; at level 1 it takes a quarter of that for a
// fifth more bytes, and runs on libuv's threads while the list is still being written.
// Plain JavaScript, unlike the rest: loading it through tsx cost each process 65 MB.
import { randomBytes, randomUUID } from 'node:crypto';
import { STATUS_CODES, ServerResponse, createServer } from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { constants } from 'node:zlib';
import compression from 'compression';
import next from 'next';

/** What the primary parsed and prepared (`WebOptions` in cluster.ts). */
const { port, hostname, keepAliveTimeoutMs, headers, pagePolicy, trustedProxies = 0, routes = [] } = JSON.parse(process.env.FIELDMAP_SERVE ?? '{}');

const fastest = { level: 1, brotli: { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } } };
// Most answers are a few kilobytes, compressed with zlib's own 16 kB output buffer: a larger one,
// allocated for every answer, cost a small answer a quarter of its throughput.
const compress = compression(fastest);
// The field list is tens of megabytes (lib/http/stream.ts sends it a page, about 1.6 MB, at a
// time). With a 1 MB output buffer libuv's thread compresses a whole page in one go while Next.js
// writes the next; with 256 kB each page took two goes with a turn of the busy event loop between
// them, and the gzipped list took 10-20 % longer (512 kB: 13 %; 2 MB: no better). 4 MB of room
// ahead of the compressor lets Next.js go on writing the list meanwhile.
const compressList = compression({ ...fastest, highWaterMark: 4 * 1024 * 1024, chunkSize: 1024 * 1024 });
const isFieldList = (req) => req.method === 'GET' && /^\/api\/fields(\?|$)/.test(req.url ?? '');

// Security headers on every answer (lib/http/security-headers.ts). Set here, not in next.config.ts:
// Next.js compiled its header rules on every request (a tenth of a millisecond), and read
// the base maps' hosts when it built, not at start.
const SECURITY_HEADERS = Object.entries(headers);
/**
 * A page's policy with a nonce of its own, on the answer and on the request: Next.js reads the nonce
 * from the request's policy and writes it on each script of the page. API answers and static files
 * keep the policy set with the other headers (nothing in them runs), and draw no nonce.
 */
const CSP = 'content-security-policy';
const isPage = (req) => !isApi(req) && !(req.url ?? '').startsWith('/_next/static/');
function setPagePolicy(req, res) {
  const policy = pagePolicy.replace('{nonce}', randomBytes(16).toString('base64'));
  req.headers[CSP] = policy;
  res.setHeader(CSP, policy);
}

const app = next({ dev: false, dir: fileURLToPath(new URL('../..', import.meta.url)), hostname, port });
const handle = app.getRequestHandler();
// Server components cannot see the address they render; sign-in needs it to send the user back
// (lib/ui/server.ts). Set here, and only here: a client's own value is replaced.
const REQUEST_PATH = 'x-fieldmap-path';
// Route handlers cannot see the socket either; rate limits need the caller's address
// (lib/http/route.ts, clientIp). Set here, and only here.
const CLIENT_ADDRESS = 'x-fieldmap-client';
/**
 * The caller's address: the socket's peer, or behind `trustedProxies` proxies the address the
 * outermost of them saw (each appends its peer to X-Forwarded-For; what comes before is the client's
 * own word).
 */
function clientAddress(req) {
  const hops = trustedProxies > 0 ? String(req.headers['x-forwarded-for'] ?? '').split(',').map((h) => h.trim()).filter(Boolean) : [];
  return (hops.length >= trustedProxies ? hops[hops.length - trustedProxies] : undefined) ?? req.socket.remoteAddress ?? 'unknown';
}
const serve = (req, res) => {
  req.headers[REQUEST_PATH] = req.url ?? '/';
  req.headers[CLIENT_ADDRESS] = clientAddress(req);
  // After the compressor has wrapped the answer, so that the envelope is compressed like any answer.
  if (isApi(req)) {
    const refused = refusal(req);
    if (refused) return void answerError(req, res, refused);
    enveloping405(req, res);
  }
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
  if (pagePolicy && isPage(req)) setPagePolicy(req, res);
  return handle(req, res).catch((err) => {
    console.error(err);
    if (!res.headersSent) res.statusCode = 500;
    res.end();
  });
};
// Next.js flushes the compressor after every piece it writes, so that a page rendered in parts
// reaches the browser part by part. An API answer is read whole, and for it each flush (zlib's full
// flush) was one more trip to libuv's thread: 45-60 µs of a small answer's CPU, and for the list a
// restart of the compressor's dictionary at every page. API answers are flushed by their end alone.
const isApi = (req) => /^\/(api\/|upload(\?|$))/.test(req.url ?? '');

// Next.js answers a method a route handler does not export with an empty 405. API clients get the
// JSON envelope every other failure has, in the caller's language as far as this process can tell
// without a session (the language switcher's cookie, else Accept-Language, else ru), as
// lib/i18n/locales.ts chooses it.
const require = createRequire(import.meta.url);
const LOCALES = ['ru', 'en', 'sk'];
const ERRORS = Object.fromEntries(LOCALES.map((l) => [l, require(`../../messages/${l}.json`).errors]));
function localeOf(req) {
  const cookie = /(?:^|;\s*)NEXT_LOCALE=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
  if (LOCALES.includes(cookie)) return cookie;
  const ranked = (req.headers['accept-language'] ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='));
      return { lang: (tag ?? '').toLowerCase().split('-')[0], q: q ? Number(q.slice(2)) || 0 : 1 };
    })
    .filter((x) => x.q > 0 && LOCALES.includes(x.lang))
    .sort((a, b) => b.q - a.q);
  return ranked[0]?.lang ?? 'ru';
}
function enveloping405(req, res) {
  const end = res.end;
  res.end = function (chunk, ...rest) {
    const empty = chunk === undefined || chunk === null || typeof chunk === 'function' || chunk.length === 0;
    if (res.statusCode === 405 && empty && !res.headersSent) {
      setErrorHeaders(req, res, 405);
      return end.call(this, envelope(localeOf(req), 'method_not_allowed', req.method));
    }
    return end.call(this, chunk, ...rest);
  };
}

// `Allow` of a 405 (RFC 9110 15.5.6), from the routes table: Next.js's 405 has none (only its OPTIONS
// answer lists them). A literal segment wins over a parameter, as in Next.js's routing
// (`/api/fields/merge` is not `/api/fields/{id}`).
const ROUTE_PATTERNS = routes.map((key) => {
  const [method, path] = key.split(' ');
  return { method, params: (path.match(/\{/g) ?? []).length, re: new RegExp(`^${path.replace(/\./g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`) };
});
function allowOf(req) {
  const path = (req.url ?? '').split('?')[0];
  const matches = ROUTE_PATTERNS.filter((r) => r.re.test(path));
  const fewest = Math.min(...matches.map((r) => r.params));
  const methods = new Set(['OPTIONS', ...matches.filter((r) => r.params === fewest).map((r) => r.method)]);
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort().join(', ');
}

// Requests Next.js cannot route: a method it has no handler slot for (TRACE, PROPFIND: a 500 or an
// empty 400 from Next.js) or a path that is not valid percent-encoding (`/api/fields/%ZZ`: a 500).
const ROUTE_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
function refusal(req) {
  if (!ROUTE_METHODS.has(req.method)) return { status: 405, key: 'method_not_allowed' };
  try {
    decodeURIComponent((req.url ?? '').split('?')[0]);
  } catch {
    return { status: 400, key: 'http_malformed' };
  }
  return undefined;
}
function answerError(req, res, { status, key }) {
  res.statusCode = status;
  setErrorHeaders(req, res, status);
  res.end(envelope(localeOf(req), key, req.method));
}

/** The JSON envelope of an error the web process answers itself (the routes' own: lib/http/respond.ts). */
const envelope = (locale, key, method = '') => JSON.stringify({ success: false, error: ERRORS[locale][key].replace('{method}', method) });
/** The headers of such an answer: its type, the path's methods for a 405, and the request's id. */
function setErrorHeaders(req, res, status) {
  res.setHeader('content-type', 'application/json');
  if (status === 405) res.setHeader('allow', allowOf(req));
  res.setHeader('x-request-id', req.headers['x-request-id']?.slice(0, 64) || randomUUID());
}

// Next.js drops a route's Content-Length; a download's size comes under this name instead
// (DOWNLOAD_SIZE_HEADER, lib/http/respond.ts) and goes out as Content-Length, so that the browser
// shows how much of a large file is left. The compressor removes it again from what it compresses.
const DOWNLOAD_SIZE = 'x-fieldmap-download-size';
class Answer extends ServerResponse {
  setHeader(name, value) {
    return super.setHeader(name === DOWNLOAD_SIZE ? 'content-length' : name, value);
  }
}

// A client that accepts no encoding is answered without the middleware's wrapping at all.
const server = createServer({ ServerResponse: Answer }, (req, res) => {
  if (!req.headers['accept-encoding']) return void serve(req, res);
  (isFieldList(req) ? compressList : compress)(req, res, () => {
    if (isApi(req)) delete res.flush;
    serve(req, res);
  });
});
server.keepAliveTimeout = keepAliveTimeoutMs;

// A request that is not HTTP Node.js can parse (a body longer than its Content-Length, a malformed
// header), whose headers are too large or that takes too long to arrive: Node.js answers with an
// empty body. Clients get the JSON envelope, in their language as far as the headers received tell.
const CLIENT_ERRORS = { 400: 'http_malformed', 408: 'http_timeout', 431: 'http_headers_too_large' };
server.on('clientError', (err, socket) => {
  // As Node.js's own handler: nothing to say to a gone client or one whose answer has begun.
  if (err.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) return void socket.destroy();
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const head = err.rawPacket?.toString('latin1') ?? '';
  const header = (name) => new RegExp(`\\r\\n${name}:([^\\r]*)`, 'i').exec(head)?.[1]?.trim();
  const locale = localeOf({ headers: { cookie: header('cookie'), 'accept-language': header('accept-language') } });
  const body = Buffer.from(envelope(locale, CLIENT_ERRORS[status]));
  socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
  socket.end(body);
});

try {
  await app.prepare();
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, resolve);
  });
} catch (err) {
  console.error(err);
  process.exit(1);
}
console.log(`✓ web process ${process.pid} listening on ${hostname ?? '0.0.0.0'}:${port}`);

// Finish what is in flight, then leave. Keep-alive connections idle at the signal are closed at once
// and the others as soon as their answer is out, instead of waiting for their clients.
let closing = false;
const close = (code) => {
  if (closing) return;
  closing = true;
  const sweep = setInterval(() => server.closeIdleConnections(), 100);
  server.close(() => {
    clearInterval(sweep);
    void app.close().finally(() => process.exit(code));
  });
  server.closeIdleConnections();
};
process.on('SIGTERM', () => close(143));
process.on('SIGINT', () => close(130));
