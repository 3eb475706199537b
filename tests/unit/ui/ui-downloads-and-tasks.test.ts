// The browser's side of downloads and task progress: a cut download, a task poll while the server
// restarts, and the upload bar's unit in the user's language.
import { createElement, type ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { NextIntlClientProvider } from 'next-intl';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UploadBar } from '@/components/uploads/progress';
import { download } from '@/lib/ui/api';
import { MAX_RETRY_MS, POLL_MS, afterFailedPoll } from '@/lib/ui/task-poll';
import en from '../../../messages/en.json';
import ru from '../../../messages/ru.json';
import sk from '../../../messages/sk.json';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('download', () => {
  it('answers a download cut off midway as a network failure, which the callers show and end their busy state on', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('PK\u0003\u0004 the first bytes of a ZIP'));
        controller.error(new TypeError('terminated'));
      },
    });
    vi.stubGlobal('fetch', async () => new Response(body, { status: 200, headers: { 'content-disposition': 'attachment; filename=fields_kmz.zip' } }));
    await expect(download('/api/field/export/kmz/all')).resolves.toEqual({ ok: false, error: null });
  });

  it('answers a refusal with the server’s words', async () => {
    vi.stubGlobal('fetch', async () => Response.json({ success: false, error: 'Invalid data: unknown fields: heigth' }, { status: 422 }));
    await expect(download('/api/field/export/kmz/1?heigth=50')).resolves.toEqual({ ok: false, error: 'Invalid data: unknown fields: heigth' });
  });
});

describe('task polling after a failed poll', () => {
  it('tries again after a 5xx (a restart’s 502/503), a timeout or no answer, waiting longer each time', () => {
    for (const status of [0, 500, 502, 503, 504, 408, 429]) {
      expect(afterFailedPoll(status, 1), String(status)).toEqual({ stop: false, showError: false, delayMs: POLL_MS });
      expect(afterFailedPoll(status, 2).delayMs).toBe(2 * POLL_MS);
      expect(afterFailedPoll(status, 3).delayMs).toBe(4 * POLL_MS);
    }
    expect(afterFailedPoll(503, 20)).toEqual({ stop: false, showError: true, delayMs: MAX_RETRY_MS });
  });

  it('stops at a refusal that asking again would not change, and shows it', () => {
    for (const status of [400, 401, 403, 404]) expect(afterFailedPoll(status, 1), String(status)).toEqual({ stop: true, showError: true, delayMs: 0 });
  });
});

describe('upload bar', () => {
  const render = (locale: 'ru' | 'en' | 'sk', messages: typeof en, progress = { loaded: 1.5 * 1048576, total: 3 * 1048576 }) =>
    renderToStaticMarkup(
      createElement(NextIntlClientProvider as (p: { locale: string; messages: object; timeZone: string }) => ReactNode, { locale, messages, timeZone: 'UTC' }, createElement(UploadBar, { progress })),
    );

  it('says megabytes in the user’s language', () => {
    expect(render('ru', ru)).toContain('1,5 / 3 МБ');
    expect(render('en', en)).toContain('1.5 / 3 MB');
    expect(render('sk', sk)).toContain('1,5 / 3 MB');
  });

  it('counts a small file in kilobytes: 60 % of a 100 kB shapefile is not "0 / 0.1 MB"', () => {
    const progress = { loaded: 60_000, total: 100_000 };
    expect(render('en', en, progress)).toContain('58.6 / 97.7 kB');
    expect(render('ru', ru, progress)).toContain('58,6 / 97,7 кБ');
    expect(render('sk', sk, progress)).toContain('58,6 / 97,7 kB');
  });
});
