// A small HTTP client for the API tests: keeps the session cookie like a browser would, and sends
// JSON or multipart bodies.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export type Part = string | { file: string; name?: string; type?: string } | { data: Uint8Array | string; name: string; type?: string };

let counter = 0;
/** A name no other test run uses. */
export const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++counter}`;

export class Api {
  cookie?: string;
  headers: Record<string, string> = {};

  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const init: RequestInit = { method, headers: { ...this.headers, ...headers }, redirect: 'manual' };
    const h = init.headers as Record<string, string>;
    if (this.cookie) h.cookie = `session_token=${this.cookie}`;
    if (body instanceof FormData || typeof body === 'string') init.body = body;
    else if (body instanceof Uint8Array) init.body = body as Uint8Array<ArrayBuffer>;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    const res = await fetch(this.baseUrl + path, init);
    const setCookie = res.headers.get('set-cookie');
    const match = setCookie?.match(/session_token=([^;]*)/);
    if (match) this.cookie = match[1] || undefined;
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get = <T = any>(path: string, headers?: Record<string, string>) => this.request<T>('GET', path, undefined, headers);
  post = <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => this.request<T>('POST', path, body, headers);
  put = <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => this.request<T>('PUT', path, body, headers);
  patch = <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => this.request<T>('PATCH', path, body, headers);
  del = <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => this.request<T>('DELETE', path, body, headers);

  /**
   * POST multipart/form-data; file parts are read from disk or given as bytes. The form is encoded
   * into one buffer first: streamed part by part, fetch may still be writing when the server refuses
   * before reading (a 503 or 413) and closes, and fail with EPIPE before it reads the answer.
   */
  async upload<T = any>(path: string, parts: Record<string, Part>): Promise<ApiResponse<T>> {
    const form = new FormData();
    for (const [name, part] of Object.entries(parts)) {
      if (typeof part === 'string') form.append(name, part);
      else if ('file' in part) form.append(name, new Blob([readFileSync(part.file)], { type: part.type ?? 'application/octet-stream' }), part.name ?? basename(part.file));
      else form.append(name, new Blob([part.data as BlobPart], { type: part.type ?? 'application/octet-stream' }), part.name);
    }
    const encoded = new Request('http://form.invalid', { method: 'POST', body: form });
    const body = Buffer.from(await encoded.arrayBuffer());
    return this.request<T>('POST', path, body, { 'content-type': encoded.headers.get('content-type')! });
  }

  clone(): Api {
    const a = new Api(this.baseUrl);
    a.cookie = this.cookie;
    a.headers = { ...this.headers };
    return a;
  }
}
