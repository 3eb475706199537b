// The disk a mosaic needs, checked before compositing writes any of it (mosaic-files.ts).
import { statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ensureMosaicSpace, mosaicWorkBytes } from '@/lib/drone/mosaic-files';
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
