import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Polygon, Position } from 'geojson';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { buildFieldReportPdf } from '@/lib/exports/pdf';
import type { ExportField, ExportScan, ExportZone } from '@/lib/exports/types';
import { LOCALES } from '@/lib/i18n/locales';
import { previewLegend, previewStretch } from '@/lib/raster/ramp';
import { translate } from '@/lib/i18n/messages';

const W = 18.72, E = 18.73, S = 48.2, N = 48.205;
const rect = (w: number, s: number, e: number, n: number): Position[] => [[w, s], [e, s], [e, n], [w, n], [w, s]];
const field: ExportField = {
  id: 7,
  name: 'Поле у реки Čierna',
  area: 72.5,
  status: 'Аренда',
  parcel_number: '12:34:5678',
  owner: 'Иванов Пётр Šťastný',
  geometry: { type: 'Polygon', coordinates: [rect(W, S, E, N), rect(18.7241, 48.2011, 18.7249, 48.2019).reverse()] },
  company: { name: 'Agro Levice s.r.o.' },
};
const COLORS = ['#d73027', '#fee08b', '#1a9850'];
const zones: ExportZone[] = [0, 1, 2].map((i) => ({
  classIndex: i + 1,
  name: ['Низкая Ľ', 'Средняя', 'Высокая'][i]!,
  areaHa: 20 + i,
  mean: 0.3 + i * 0.2,
  min: 0.1,
  max: 0.9,
  color: COLORS[i]!,
  geometry: { type: 'Polygon', coordinates: [rect(W + (i * (E - W)) / 3, S, W + ((i + 1) * (E - W)) / 3, N)] } as Polygon,
}));
const scan: ExportScan = {
  id: 3,
  indexName: 'ndvi',
  capturedAt: '2026-06-14T09:30:00Z',
  stats: { min: -0.1, max: 0.92, mean: 0.61, std: 0.12, median: 0.63 },
  histogram: { min: -0.1, max: 0.92, counts: Array.from({ length: 40 }, (_, i) => Math.round(1000 * Math.exp(-((i - 26) ** 2) / 40))) },
  crop: { crop_type: 'wheat', confidence: 0.87, top_candidates: [{ crop: 'wheat', score: 0.87 }, { crop: 'barley', score: 0.08 }, { crop: 'rapeseed', score: 0.05 }] },
};
const dir = mkdtempSync(join(tmpdir(), 'report-'));

function save(name: string, pdf: Buffer) {
  const path = join(dir, name);
  writeFileSync(path, pdf);
  return path;
}
const pdftext = (path: string) => execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8' });

/** Page 1 rendered at `dpi` (50 unless told): pixels whose colour is near `hex`. */
async function pixelsNear(path: string, hex: string, dpi = 50): Promise<number> {
  execFileSync('pdftoppm', ['-r', String(dpi), '-png', '-f', '1', '-l', '1', path, join(dir, 'page')]);
  const { data, info } = await sharp(readFileSync(join(dir, 'page-1.png'))).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const target = [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
  let n = 0;
  for (let i = 0; i < info.width * info.height * 3; i += 3) if (target.every((v, c) => Math.abs(data[i + c]! - v) < 12)) n++;
  return n;
}

describe('PDF field report', () => {
  it.each(LOCALES)('renders in %s: A4, DejaVu embedded, translated labels and the field data', async (locale) => {
    const path = save(`report-${locale}.pdf`, await buildFieldReportPdf(field, scan, zones, { locale, rates: { 1: 180, 2: 150, 3: 120 }, now: new Date('2026-11-22T10:00:00Z') }));
    expect(execFileSync('pdfinfo', [path], { encoding: 'utf8' })).toMatch(/Page size:\s+595\.\d+ x 841\.\d+ pts \(A4\)/);
    const fonts = execFileSync('pdffonts', [path], { encoding: 'utf8' });
    expect(fonts).toMatch(/DejaVuSans\s.*yes\s+yes\s+yes/);
    expect(fonts).not.toMatch(/Helvetica/);
    const txt = pdftext(path);
    const t = (k: string) => translate(locale, k);
    for (const k of ['title', 'details', 'owner', 'parcel_number', 'status', 'area', 'map', 'no_image', 'index_stats', 'histogram', 'zones', 'zone_mean', 'zone_rate', 'crop', 'candidates', 'data_date', 'report_date']) {
      const label = t(`report.${k}`);
      expect(label, k).not.toBe(`report.${k}`);
      // Section headings are set in capitals.
      const squash = (x: string) => x.replace(/\s+/g, '').toLocaleLowerCase(locale);
      expect(squash(txt), `${locale}: ${k}`).toContain(squash(label));
    }
    // The zone table numbers its classes as the zones' names and the rates do (from 1).
    expect(txt).toMatch(/(^|\s)1\s+Низкая Ľ/m);
    expect(txt).toMatch(/(^|\s)3\s+Высокая/m);
    expect(txt).toContain(t('fields.status_values.leased'));
    for (const s of [field.name, field.owner!, field.parcel_number!, field.company.name, 'Низкая Ľ', t('drone.crops.wheat'), t('drone.crops.barley'), 'NDVI']) expect(txt).toContain(s);
    // A share as the language writes it: 87% in English, 87 % (a no-break space) in Russian and Slovak.
    expect(txt).toMatch(locale === 'en' ? /\b87%/ : /\b87\s%/);
    expect(txt).toContain(new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date('2026-06-14')));
  });

  it('writes the time it was made in the company\'s zone, and names the zone', async () => {
    const now = new Date('2026-11-22T10:00:00Z');
    const far = pdftext(save('zone-far.pdf', await buildFieldReportPdf(field, scan, zones, { locale: 'en', now, timeZone: 'Asia/Vladivostok' })));
    expect(far).toContain('November 22, 2026 at 08:00 PM GMT+10');
    const utc = pdftext(save('zone-utc.pdf', await buildFieldReportPdf(field, scan, zones, { locale: 'ru', now })));
    expect(utc).toContain('22 ноября 2026 г. в 10:00 UTC');
    // The scale bar's unit in the report's language.
    expect(utc).toMatch(/\d+\s(м|км)(?!\p{L})/u);
    expect(utc).not.toMatch(/\d+\s(m|km)(?!\p{L})/u);
  });

  it('speaks each language: Russian, English and Slovak words', async () => {
    const words = { ru: ['Отчёт по полю', 'Владелец', 'Аренда'], en: ['Field report', 'Owner', 'Leased'], sk: ['Správa o poli', 'Vlastník', 'Nájom', 'Pšenica'] };
    for (const locale of LOCALES) {
      const txt = pdftext(save(`words-${locale}.pdf`, await buildFieldReportPdf(field, scan, zones, { locale })));
      for (const w of words[locale]) expect(txt, locale).toContain(w);
    }
  });

  it('draws the zones on the map in their colours', async () => {
    const path = save('colours.pdf', await buildFieldReportPdf(field, null, zones, { locale: 'en' }));
    for (const c of [COLORS[0]!, COLORS[2]!]) expect(await pixelsNear(path, c), c).toBeGreaterThan(500);
    const bare = save('bare.pdf', await buildFieldReportPdf(field, null, [], { locale: 'en' }));
    expect(await pixelsNear(bare, COLORS[0]!)).toBeLessThan(20);
  });

  it('draws the scan index image inside the field', async () => {
    const previewPng = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#2040e0' } }).png().toBuffer();
    const path = save('preview.pdf', await buildFieldReportPdf(field, { ...scan, previewPng, previewBounds: [[S, W], [N, E]] }, [], { locale: 'ru' }));
    execFileSync('pdftoppm', ['-r', '50', '-png', '-f', '1', '-l', '1', path, join(dir, 'page')]);
    const { data } = await sharp(readFileSync(join(dir, 'page-1.png'))).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    let blue = 0;
    for (let i = 0; i < data.length; i += 3) if (data[i]! < 60 && data[i + 1]! < 90 && data[i + 2]! > 200) blue++;
    expect(blue).toBeGreaterThan(1000);
  });

  it('gives the index image its colour legend: the ramp, and the values its ends and stops stand for', async () => {
    const previewPng = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#2040e0' } }).png().toBuffer();
    const legend = previewLegend('ndvi', previewStretch(0.12, 0.84));
    const withLegend = save('legend.pdf', await buildFieldReportPdf(field, { ...scan, previewPng, previewBounds: [[S, W], [N, E]], legend }, [], { locale: 'ru' }));
    // The values in the report's language, lowest first.
    expect(pdftext(withLegend)).toMatch(/0,12[\s\S]*0,30[\s\S]*0,48[\s\S]*0,66[\s\S]*0,84/);
    const without = save('no-legend.pdf', await buildFieldReportPdf(field, { ...scan, previewPng, previewBounds: [[S, W], [N, E]], legend: null }, [], { locale: 'ru' }));
    expect(pdftext(without)).not.toMatch(/0,48|0,66/);
    // The bar is painted in the ramp's colours: its ends are on the page only with the legend.
    for (const { color } of [legend.ticks[0]!, legend.ticks.at(-1)!]) {
      expect(await pixelsNear(withLegend, color, 150), color).toBeGreaterThan((await pixelsNear(without, color, 150)) + 20);
    }
  });

  it('reports a crop a user named as the crop, and the classifier\'s result beside it', async () => {
    const named = pdftext(save('named.pdf', await buildFieldReportPdf(field, { ...scan, userCrop: 'corn' }, zones, { locale: 'sk' })));
    const t = (k: string) => translate('sk', k);
    expect(named).toContain(`${t('drone.crops.corn')} · ${t('report.crop_named')}`);
    expect(named).toContain(`${t('report.crop_automatic')}:`);
    expect(named).toMatch(new RegExp(`${t('drone.crops.wheat')} · ${t('report.confidence')} 87\\s%`));
    // A crop the pages do not name is shown as the user wrote it; with no classification, no 'not classified'.
    const own = pdftext(save('named-only.pdf', await buildFieldReportPdf(field, { ...scan, crop: undefined, userCrop: 'hemp' }, zones, { locale: 'en' })));
    expect(own).toContain('hemp · named by a user');
    // One the pages name, though the classifier does not tell it apart, in the report's language.
    const beet = pdftext(save('named-beet.pdf', await buildFieldReportPdf(field, { ...scan, crop: undefined, userCrop: 'sugar_beet' }, zones, { locale: 'sk' })));
    expect(beet).toContain(`${translate('sk', 'drone.crops.sugar_beet')} · ${translate('sk', 'report.crop_named')}`);
    expect(own).not.toContain(translate('en', 'report.no_crop'));
    expect(own).not.toContain(translate('en', 'report.crop_automatic'));
  });

  it('says a crop too close to call is not sure, and a clear one is not flagged', async () => {
    const close = { crop_type: 'grass', confidence: 0.17, top_candidates: [{ crop: 'grass', score: 0.17 }, { crop: 'corn', score: 0.15 }, { crop: 'wheat', score: 0.14 }] };
    const unsure = pdftext(save('unsure.pdf', await buildFieldReportPdf(field, { ...scan, crop: close }, zones, { locale: 'en' })));
    expect(unsure.replace(/\s+/g, ' ')).toContain(translate('en', 'report.crop_uncertain'));
    const clear = pdftext(save('clear.pdf', await buildFieldReportPdf(field, scan, zones, { locale: 'en' })));
    expect(clear).not.toContain('Not sure');
  });

  it('writes the zones\' index ranges as the report\'s language writes numbers', async () => {
    const ranged = zones.map((z, i) => ({ ...z, name: `${i + 1}: 0.${i + 1}5–0.${i + 2}5` }));
    expect(pdftext(save('ranges-sk.pdf', await buildFieldReportPdf(field, scan, ranged, { locale: 'sk' })))).toContain('2: 0,25–0,35');
    expect(pdftext(save('ranges-en.pdf', await buildFieldReportPdf(field, scan, ranged, { locale: 'en' })))).toContain('2: 0.25–0.35');
  });

  it('lists the field\'s scans over time when it has more than one, and not otherwise', async () => {
    const history = [
      { id: 3, date: '2026-06-14T09:30:00.000Z', dated: true, source: 'drone', indexName: 'ndvi', mean: 0.61, crop: 'wheat' },
      { id: 2, date: '2026-11-20T10:00:00.000Z', dated: false, source: 'raster', indexName: 'ndvi', mean: 0.4, crop: null },
      { id: 1, date: '2025-07-02T00:00:00.000Z', dated: true, source: 'raster', indexName: 'gndvi', mean: 0.553, crop: 'hemp' },
    ];
    const en = pdftext(save('history.pdf', await buildFieldReportPdf(field, scan, zones, { locale: 'en', history })));
    // Headings are set in capitals.
    expect(en).toContain('SCANS OF THIS FIELD');
    expect(en).toMatch(/June 14, 2026\s+Drone survey\s+NDVI\s+0\.610\s+Wheat/);
    expect(en).toMatch(/uploaded November 20, 2026\s+Index raster\s+NDVI\s+0\.400\s+—/);
    expect(en).toMatch(/July 2, 2025\s+Index raster\s+GNDVI\s+0\.553\s+hemp/);
    const sk = pdftext(save('history-sk.pdf', await buildFieldReportPdf(field, scan, zones, { locale: 'sk', history })));
    expect(sk).toContain(translate('sk', 'report.history').toUpperCase());
    expect(sk).toContain('0,553');
    // The longest date, in Russian and bold, keeps its year.
    const ru = pdftext(save('history-ru.pdf', await buildFieldReportPdf(field, scan, zones, { locale: 'ru', history })));
    expect(ru).toContain(translate('ru', 'report.history_uploaded', { date: new Intl.DateTimeFormat('ru', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date('2026-11-20T10:00:00Z')) }));
    const one = pdftext(save('history-one.pdf', await buildFieldReportPdf(field, scan, zones, { locale: 'en', history: history.slice(0, 1) })));
    expect(one).not.toContain('SCANS OF THIS FIELD');
  });

  it('says so when there is no scan, no zones and no crop', async () => {
    const txt = pdftext(save('empty.pdf', await buildFieldReportPdf({ ...field, owner: null, status: null, parcel_number: null }, null, [], { locale: 'sk' })));
    for (const k of ['no_scan', 'no_zones', 'no_crop']) expect(txt).toContain(translate('sk', `report.${k}`));
  });

  it('names every status the interface offers in the reader\'s language, and sets a long name smaller rather than cut it', async () => {
    const name = 'Очень длинное название поля для проверки переполнения текста в таблицах и отчётах PDF';
    const txt = pdftext(save('sublease.pdf', await buildFieldReportPdf({ ...field, name, status: 'Субаренда' }, scan, zones, { locale: 'en' })));
    expect(txt).toContain('Subleased');
    expect(txt).not.toContain('Субаренда');
    // A name that 20 pt cannot hold on one line is set smaller, whole.
    const register = 'Поле у лесополосы за фермой №3, часть 2 (бывший колхоз «Рассвет»)';
    const whole = pdftext(save('register-name.pdf', await buildFieldReportPdf({ ...field, name: register }, scan, zones, { locale: 'en' })));
    expect(whole.split('\n').find((l) => l.includes('Поле у лесополосы'))).toContain('«Рассвет»)');
    // A name past what even 11 pt holds is cut, with an ellipsis, still on one line.
    const longer = `${name}, ${name}`;
    const cut = pdftext(save('longer.pdf', await buildFieldReportPdf({ ...field, name: longer }, scan, zones, { locale: 'en' })));
    expect(cut.split('\n').find((l) => l.includes('Очень длинное'))).toContain('…');
    expect(cut.replace(/\s+/g, ' ')).not.toContain(longer);
  });

  it('titles the image beside the zones as what it is: a drone survey\'s orthomosaic, a raster\'s index', async () => {
    const squash = (x: string) => x.replace(/\s+/g, '');
    const drone = pdftext(save('drone-title.pdf', await buildFieldReportPdf(field, { ...scan, source: 'drone', indexName: 'vari' }, zones, { locale: 'ru' })));
    expect(squash(drone)).toContain(squash(translate('ru', 'report.map_orthomosaic').toUpperCase()));
    const unnamed = pdftext(save('unnamed-title.pdf', await buildFieldReportPdf(field, { ...scan, source: 'raster', indexName: 'index' }, zones, { locale: 'en' })));
    expect(squash(unnamed)).toContain('INDEXIMAGE');
    expect(squash(unnamed)).not.toContain('INDEXINDEXIMAGE');
  });

  it('keeps the crop section on one page wherever the zone table ends', async () => {
    const crop = { ...scan.crop!, top_candidates: ['wheat', 'barley', 'rapeseed', 'potato', 'grass'].map((c, i) => ({ crop: c, score: 0.5 - i * 0.1 })) };
    for (let count = 8; count <= 30; count += 2) {
      const many = Array.from({ length: count }, (_, i) => ({ ...zones[i % 3]!, classIndex: i + 1, name: `Zone ${i + 1}` }));
      const path = save(`crop-${count}.pdf`, await buildFieldReportPdf(field, { ...scan, crop, userCrop: 'oats' }, many, { locale: 'en' }));
      const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [path], { encoding: 'utf8' }))![1]);
      const pageOf = (text: string) => Array.from({ length: pages }, (_, p) => execFileSync('pdftotext', ['-layout', '-f', String(p + 1), '-l', String(p + 1), path, '-'], { encoding: 'utf8' })).findIndex((t) => t.includes(text));
      const heading = pageOf(translate('en', 'report.crop').toUpperCase());
      expect(heading, `${count} zones`).toBeGreaterThanOrEqual(0);
      expect(pageOf('Grass'), `${count} zones`).toBe(heading);
      // Nothing is pushed onto a page of its own: every page has its footer and something above it.
      expect(pages, `${count} zones`).toBeLessThanOrEqual(2);
    }
  });

  it('continues the zone table on a second page when it is long', async () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ ...zones[i % 3]!, classIndex: i, name: `Zóna ${i + 1}` }));
    const path = save('long.pdf', await buildFieldReportPdf(field, scan, many, { locale: 'sk' }));
    expect(execFileSync('pdfinfo', [path], { encoding: 'utf8' })).toMatch(/Pages:\s+2/);
    const txt = pdftext(path);
    expect(txt).toContain('Zóna 40');
    expect(txt).toContain('Strana 2 z 2');
  });

  describe('a field its zones cover only in part', () => {
    // 625.45 ha of which 476.5 are zoned: the rest is water or has no data.
    const big = { ...field, area: 625.45 };
    const partial = zones.map((z, i) => ({ ...z, areaHa: [150.2, 180.1, 146.2][i]! }));
    const rates = { 1: 180, 2: 150, 3: 120 };
    const flat = (x: string) => x.replace(/\s+/g, ' ');

    it('lists the ground no zone covers, with its share of the field and the mean rate the ISOXML prescription gives it', async () => {
      const txt = pdftext(save('unzoned.pdf', await buildFieldReportPdf(big, scan, partial, { locale: 'en', rates })));
      expect(txt).toContain('Share of field');
      // Shares are of the field, not of the zoned 476.5 ha (31.5 %, 37.8 %, 30.7 %).
      expect(txt).toMatch(/1\s+Низкая Ľ\s+150\.20\s+24\.0%\s+0\.300\s+180\.0/);
      // The area-weighted mean rate, as lib/exports/isoxml.ts writes for the default zone and the grid's unzoned cells.
      expect(txt).toMatch(/Not zoned \(no index data\)\s+148\.95\s+23\.8%\s+—\s+150\.3/);
      // The product for the whole field: 150.2 x 180 + 180.1 x 150 + 146.2 x 120 + 148.95 x 150.25.
      expect(txt).toMatch(/Total\s+625\.45\s+100\.0%\s+93,975 kg/);
      expect(flat(txt)).toContain('148.95 ha of the field have no index data (water, clouds, outside the image) and no zone: the ISOXML prescription gives them the zones’ area-weighted mean rate, 150.3 kg/ha.');
    });

    it('shows the rate set for that ground instead of the mean, and says it was set', async () => {
      const txt = pdftext(save('unzoned-set.pdf', await buildFieldReportPdf(big, scan, partial, { locale: 'en', rates, unzonedRate: 0 })));
      expect(txt).toMatch(/Not zoned \(no index data\)\s+148\.95\s+23\.8%\s+—\s+0\.0/);
      expect(txt).toMatch(/Total\s+625\.45\s+100\.0%\s+71,595 kg/);
      const ru = pdftext(save('unzoned-set-ru.pdf', await buildFieldReportPdf(big, scan, partial, { locale: 'ru', rates, unzonedRate: 0 })));
      expect(ru).toMatch(/71\s595 кг/);
      expect(ru).toMatch(/Без зоны \(нет данных\)\s+148,95/); // whole, not cut to fit its column
      expect(flat(txt)).toContain('148.95 ha of the field have no index data (water, clouds, outside the image) and no zone: the ISOXML prescription gives them the rate set for them, 0.0 kg/ha.');
    });

    it('gives no mean rate for that ground when a zone class has no rate, and no such row when the zones cover the field', async () => {
      const txt = pdftext(save('unzoned-norate.pdf', await buildFieldReportPdf(big, scan, partial, { locale: 'en', rates: { 1: 180, 2: 150 } })));
      expect(txt).toMatch(/3\s+Высокая\s+146\.20\s+23\.4%\s+0\.700\s+—/);
      expect(txt).toMatch(/Not zoned \(no index data\)\s+148\.95\s+23\.8%\s+—\s+—/);
      expect(flat(txt)).toContain('the ISOXML prescription gives them the zones’ area-weighted mean rate.');
      const whole = pdftext(save('zoned-whole.pdf', await buildFieldReportPdf({ ...field, area: 63 }, scan, zones, { locale: 'en', rates })));
      expect(whole).not.toContain('Not zoned');
      expect(whole).toMatch(/Total\s+63\.00\s+100\.0%/);
      // No total product when a rate is missing.
      expect(txt).toMatch(/Total\s+625\.45\s+100\.0%\s*\n/);
    });

    it('says how much of the field the scan covers: a raster by its zones, a drone survey by its photos, in each language', async () => {
      const raster = pdftext(save('coverage-raster.pdf', await buildFieldReportPdf(big, scan, partial, { locale: 'en', rates })));
      expect(raster).toMatch(/Coverage\s+Zoned: 476\.50 ha of 625\.45 ha \(76%\)/);
      const drone = pdftext(save('coverage-drone.pdf', await buildFieldReportPdf(big, { ...scan, source: 'drone', photoCoverage: 0.7612 }, partial, { locale: 'en' })));
      expect(drone).toMatch(/Coverage\s+Photos cover 76% of the field/);
      const ru = pdftext(save('coverage-ru.pdf', await buildFieldReportPdf(big, scan, partial, { locale: 'ru' })));
      expect(ru).toMatch(/Покрытие\s+В зонах: 476,50 га из 625,45 га \(76\s%\)/);
      expect(flat(ru)).toContain('148,95 га поля без данных индекса');
      const sk = pdftext(save('coverage-sk.pdf', await buildFieldReportPdf(big, { ...scan, source: 'drone', photoCoverage: 0.05 }, partial, { locale: 'sk' })));
      expect(sk).toMatch(/Pokrytie\s+Fotografie pokrývajú 5,0\s% poľa/);
    });
  });
});
