// The disk a mosaic needs, checked before compositing writes any of it (mosaic-files.ts), and the
// grid's own size against the photos' (ortho.ts), checked before that.
import { statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ensureMosaicSpace, mosaicWorkBytes } from '@/lib/drone/mosaic-files';
import { plausibleGrid, StitchError } from '@/lib/drone/ortho';
import { AppError } from '@/lib/errors';
import { HTTP_STATUS } from '@/lib/http/errors';
import { translate } from '@/lib/i18n/messages';

describe('the work space of a mosaic', () => {
  it('counts the raw copy, its overviews and the COG', () => {
    // 568.5 MP of RGB and alpha, as the 200-photo survey: 2.27 GB raw, about 4.2 GB in all.
    expect(mosaicWorkBytes(24767, 22954, 4) / 1e9).toBeCloseTo(4.17, 2);
  });

  it('passes what the disk holds, and refuses more with both sizes, in each language', async () => {
    const { bavail, bsize } = statfsSync(tmpdir());
    const free = bavail * bsize;
    await expect(ensureMosaicSpace(tmpdir(), Math.min(1e6, free / 2))).resolves.toBeUndefined();
    const refusal = await ensureMosaicSpace(tmpdir(), free + 1e12).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(AppError);
    const { key, kind, params } = refusal as AppError;
    expect([key, HTTP_STATUS[kind]]).toEqual(['drone_mosaic_no_space', 507]);
    expect(params!.need_gb).toBeGreaterThan(1000);
    expect(params!.free_gb).toBeLessThanOrEqual(free / 1e9);
    for (const locale of ['ru', 'en', 'sk'] as const) {
      const text = translate(locale, `errors.${key}`, params as Record<string, number>);
      expect(text, locale).toMatch(/resolution_cm/);
      expect(text, locale).not.toMatch(/[{}]|errors\./);
    }
  });
});

describe('the grid of a mosaic', () => {
  const photos = (n: number, width: number, height: number) => Array.from({ length: n }, () => ({ width, height }));

  it('holds about as many pixels as its photos, or fewer: a collapsed block\'s grid is refused as a survey without scale, in each language', () => {
    // brighton_beach at native resolution: 87.4 MP from 18 photos of 4000 x 2250 (162 MP).
    expect(plausibleGrid({ W: 9249, H: 9455 }, photos(18, 4000, 2250))).toBe(true);
    // The 200-photo survey: 568.5 MP from 200 photos of 5472 x 3648.
    expect(plausibleGrid({ W: 24767, H: 22954 }, photos(200, 5472, 3648))).toBe(true);
    // 300 photos of one spot 3.5 m apart, no camera data: the block shrank to a pixel of 51 µm.
    expect(plausibleGrid({ W: 1733455, H: 1673979 }, photos(300, 640, 480))).toBe(false);
    // Sixteen times the photos' pixels is the bound.
    expect(plausibleGrid({ W: 16 * 640, H: 480 }, photos(1, 640, 480))).toBe(true);
    expect(plausibleGrid({ W: 16 * 640 + 1, H: 480 }, photos(1, 640, 480))).toBe(false);
    const refusal = new StitchError('no_scale');
    for (const locale of ['ru', 'en', 'sk'] as const) {
      const text = translate(locale, `errors.${refusal.key}`, refusal.params as Record<string, string>);
      expect(text, locale).toMatch(/масштаб|scale|mierk/);
      expect(text, locale).not.toMatch(/[{}]|errors\.|ошибка обработки|processing error|chyba spracovania/);
    }
  });
});
