// Browser-side calls to the service's own JSON API. Failures come back as the server's message
// (already in the user's language); a network failure has no message and the caller words it.
import { parse as parseContentDisposition } from 'content-disposition';
import { noteAnswer } from './session-state';

export type ApiResult<T> = { ok: true; status: number; data: T } | { ok: false; status: number; error: string | null };

export async function api<T = Record<string, unknown>>(path: string, init: { method?: string; body?: unknown } = {}): Promise<ApiResult<T>> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? 'GET',
      headers: init.body !== undefined ? { 'content-type': 'application/json' } : undefined,
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      credentials: 'same-origin',
    });
  } catch {
    return { ok: false, status: 0, error: null };
  }
  noteAnswer(path, res.status);
  const data = (await res.json().catch(() => null)) as (T & { success?: boolean; error?: string }) | null;
  if (!res.ok || data?.success === false) return { ok: false, status: res.status, error: data?.error ?? null };
  return { ok: true, status: res.status, data: data as T };
}

/**
 * Downloads a file answer (KMZ, ZIP, PDF) through fetch so an error answer is shown as words on the
 * page instead of replacing it with raw JSON. Returns the error message, or null when saved.
 */
export async function download(path: string): Promise<{ ok: true; headers: Headers } | { ok: false; error: string | null }> {
  let res: Response;
  try {
    res = await fetch(path, { credentials: 'same-origin' });
  } catch {
    return { ok: false, error: null };
  }
  noteAnswer(path, res.status);
  if (!res.ok) {
    const data = (await res.json().catch(() => null)) as { error?: string } | null;
    return { ok: false, error: data?.error ?? null };
  }
  let blob: Blob;
  try {
    blob = await res.blob();
  } catch {
    // The body was cut off (connection lost, server restarted mid-file): a network failure, not a file.
    return { ok: false, error: null };
  }
  saveBlob(blob, fileNameFrom(res.headers.get('content-disposition')) ?? 'download');
  return { ok: true, headers: res.headers };
}

/** Has the browser save `blob` as a file named `name`. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function fileNameFrom(disposition: string | null): string | undefined {
  if (!disposition) return undefined;
  try {
    // The UTF-8 `filename*` when there is one, else `filename`, quoted or not.
    return parseContentDisposition(disposition).parameters.filename;
  } catch {
    return undefined;
  }
}

export interface UploadProgress {
  loaded: number;
  total: number;
}

/** multipart POST with real upload progress (fetch cannot report it). */
export function uploadForm<T>(path: string, form: FormData, onProgress: (p: UploadProgress) => void): Promise<ApiResult<T>> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.responseType = 'json';
    xhr.upload.onprogress = (e) => onProgress({ loaded: e.loaded, total: e.lengthComputable ? e.total : 0 });
    xhr.onload = () => {
      noteAnswer(path, xhr.status);
      const data = xhr.response as (T & { success?: boolean; error?: string }) | null;
      if (xhr.status >= 200 && xhr.status < 300 && data?.success !== false) resolve({ ok: true, status: xhr.status, data: data as T });
      else resolve({ ok: false, status: xhr.status, error: data?.error ?? null });
    };
    xhr.onerror = () => resolve({ ok: false, status: 0, error: null });
    xhr.onabort = () => resolve({ ok: false, status: 0, error: null });
    xhr.send(form);
  });
}
