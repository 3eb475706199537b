// The field report a person reads or prints: A4, DejaVu Sans embedded (Cyrillic and Slovak letters),
// every label from messages/{ru,en,sk}.json under `report`.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { MultiPolygon, Polygon, Position } from 'geojson';
import PDFDocument from 'pdfkit';
import { localizeZoneName } from '@/lib/i18n/formats';
import { translate } from '@/lib/i18n/messages';
import type { Locale } from '@/lib/i18n/locales';
import { statusKey } from '@/lib/fields/land-status';
import type { ExportField, ExportScan, ExportScanEntry, ExportZone, Rates } from './types';
import { legendDigits, type PreviewLegend } from '@/lib/raster/ramp';
import { isUncertain } from '@/lib/drone/classify';
import { PARTIAL_COVERAGE, coverageOf, zonedGround } from '@/lib/scans/coverage';

export interface ReportOptions {
  locale: Locale;
  /** kg/ha per zone class (the company's settings, or the request's `rates` over them); a class without one shows a dash. */
  rates?: Rates;
  /** kg/ha where no zone lies, as the ISOXML export's `unzoned_rate`; the zones' mean when null or left out. */
  unzonedRate?: number | null;
  /** When the report is made (defaults to now). */
  now?: Date;
  /** The zone that time is written in (the company's; UTC by default). */
  timeZone?: string;
  /** The field's processed scans, the latest taken first; listed when there is more than one. */
  history?: ExportScanEntry[];
}

const FONT_DIRS = [join(process.cwd(), 'node_modules', 'dejavu-fonts-ttf', 'ttf'), '/usr/share/fonts/truetype/dejavu'];

function fontPaths(): { regular: string; bold: string } {
  const dir = FONT_DIRS.find((d) => existsSync(join(d, 'DejaVuSans.ttf')) && existsSync(join(d, 'DejaVuSans-Bold.ttf')));
  if (!dir) throw new Error(`DejaVu Sans not found in ${FONT_DIRS.join(', ')}`);
  return { regular: join(dir, 'DejaVuSans.ttf'), bold: join(dir, 'DejaVuSans-Bold.ttf') };
}

const PAGE = { width: 595.28, height: 841.89, margin: 40 };
const CONTENT_W = PAGE.width - 2 * PAGE.margin;
const INK = '#1f2933';
const MUTED = '#616e7c';
/** Warnings: a crop too close to call. Amber dark enough to read on white in print. */
const WARNING = '#92400e';
const RULE = '#cbd2d9';
const ACCENT = '#2f7d32';
const FOOTER_Y = PAGE.height - PAGE.margin - 12;


/** Red -> yellow -> green over 0..1, the usual vegetation-index ramp. */
function ramp(t: number): string {
  const c = Math.max(0, Math.min(1, t));
  const [r, g] = c < 0.5 ? [215, Math.round(48 + (c / 0.5) * (191 - 48))] : [Math.round(215 - ((c - 0.5) / 0.5) * (215 - 26)), Math.round(191 - ((c - 0.5) / 0.5) * (191 - 150))];
  return `#${[r, g, c < 0.5 ? 39 : 65].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

const parts = (g: Polygon | MultiPolygon): Position[][][] => (g.type === 'Polygon' ? [g.coordinates] : g.coordinates);


/**
 * What the zones leave of the field, and the rate the ISOXML prescription gives that ground: the
 * rate the user set for it, else the zones' area-weighted mean (lib/exports/isoxml.ts), known only
 * when every zone has a rate.
 */
export function unzonedGround(fieldHa: number, zones: ExportZone[], rates: Rates | undefined, unzonedRate?: number | null): { zonedHa: number; unzonedHa: number; shareBasis: number; rate: number | null; rateIsMean: boolean } {
  const { zonedHa, unzonedHa, shareBasis } = zonedGround(fieldHa, zones.map((z) => z.areaHa));
  const valid = (r: number | undefined): r is number => r !== undefined && Number.isFinite(r) && r >= 0;
  const kgHa = zones.map((z) => rates?.[z.classIndex]);
  if (unzonedRate !== undefined && unzonedRate !== null) return { zonedHa, unzonedHa, shareBasis, rate: unzonedRate, rateIsMean: false };
  const meanRate = zones.length === 0 || !kgHa.every(valid) ? null : zonedHa > 0 ? zones.reduce((s, z, i) => s + z.areaHa * kgHa[i]!, 0) / zonedHa : kgHa[0]!;
  return { zonedHa, unzonedHa, shareBasis, rate: meanRate, rateIsMean: true };
}

/**
 * The product the prescription spreads on the whole field (kg): each zone's area at its rate and the
 * unzoned ground at the rate it gets; null unless every part has a rate.
 */
export function productTotalKg(zones: ExportZone[], rates: Rates | undefined, unzoned: { unzonedHa: number; rate: number | null }): number | null {
  const kgHa = zones.map((z) => rates?.[z.classIndex]);
  if (zones.length === 0 || !kgHa.every((r) => r !== undefined && Number.isFinite(r))) return null;
  if (unzoned.unzonedHa > 0 && unzoned.rate === null) return null;
  return zones.reduce((s, z, i) => s + z.areaHa * kgHa[i]!, 0) + (unzoned.unzonedHa > 0 ? unzoned.unzonedHa * unzoned.rate! : 0);
}

export async function buildFieldReportPdf(field: ExportField, scan: ExportScan | null, zones: ExportZone[], opts: ReportOptions): Promise<Buffer> {
  const { locale } = opts;
  const now = opts.now ?? new Date();
  const fonts = fontPaths();
  const t = (key: string, params: Record<string, string | number> = {}) => translate(locale, `report.${key}`, params);
  /** A translation from another namespace, or the raw value when there is none. */
  const tOr = (key: string, raw: string) => { const s = translate(locale, key); return s === key ? raw : s; };
  const num = (x: number | null | undefined, digits = 2) =>
    x === null || x === undefined || !Number.isFinite(x) ? '—' : new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x);
  // A share as the language writes one: `30.3%` in English, `30,3 %` in Russian and Slovak.
  const pct = (share: number, digits: number) => new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: digits, maximumFractionDigits: digits }).format(share);
  const date = (d: Date) => new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(d);
  // Capture dates are days as the files wrote them (read as UTC, as on the pages); the report's own
  // time is written in the company's zone, and named.
  const dateTime = (d: Date) =>
    new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'long', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short', timeZone: opts.timeZone ?? 'UTC' }).format(d);
  const indexLabel = scan ? tOr(`drone.index_${scan.indexName.toLowerCase()}_name`, scan.indexName.toUpperCase()) : '';

  const doc = new PDFDocument({
    size: 'A4',
    margin: PAGE.margin,
    bufferPages: true,
    font: fonts.regular,
    info: { Title: `${t('title')}: ${field.name}`, Author: field.company.name, Creator: 'Fieldmap', CreationDate: now },
  });
  doc.registerFont('body', fonts.regular);
  doc.registerFont('bold', fonts.bold);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const finished = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const text = (s: string, x: number, y: number, o: PDFKit.Mixins.TextOptions & { font?: string; size?: number; color?: string } = {}) => {
    const { font = 'body', size = 9, color = INK, ...rest } = o;
    doc.font(font).fontSize(size).fillColor(color).text(s, x, y, { lineBreak: false, ...rest });
  };
  const heading = (s: string, x: number, y: number, w: number) => {
    text(s.toUpperCase(), x, y, { font: 'bold', size: 9, color: ACCENT, characterSpacing: 0.6 });
    doc.moveTo(x, y + 13).lineTo(x + w, y + 13).lineWidth(0.6).strokeColor(RULE).stroke();
    return y + 20;
  };
  /**
   * What the index image's colours mean, drawn up and left of (`right`, `bottom`), the lower right
   * corner of the map (the scale bar has the left one): the ramp as a bar (a PDF gradient through the
   * ticks' colours, which are the ramp's stops) and the values under it.
   */
  const legend = (l: PreviewLegend, right: number, bottom: number) => {
    const barW = 120;
    const [x, y] = [right - barW - 16, bottom - 25];
    const digits = legendDigits(l);
    doc.save().rect(x, y, barW + 16, 25).fillOpacity(0.9).fill('#ffffff').restore();
    const gradient = doc.linearGradient(x + 8, 0, x + 8 + barW, 0);
    l.ticks.forEach((tick, i) => gradient.stop(i / (l.ticks.length - 1), tick.color));
    doc.rect(x + 8, y + 4, barW, 6).fill(gradient);
    doc.rect(x + 8, y + 4, barW, 6).lineWidth(0.4).strokeColor(MUTED).stroke();
    l.ticks.forEach((tick, i) => {
      const label = num(tick.value, digits);
      const w = doc.font('body').fontSize(6.5).widthOfString(label);
      // The ends' labels stay inside the bar, the others are centred on their tick.
      const at = x + 8 + (i / (l.ticks.length - 1)) * barW - (i / (l.ticks.length - 1)) * w;
      text(label, at, y + 13, { size: 6.5 });
    });
  };
  /** A table's row writer, and its header, drawn at `yy`; answers where the rows start. */
  const tableOf = (cols: { w: number; align: 'left' | 'right' }[], labels: string[]) => {
    const row = (cells: string[], yy: number, font: string, color = INK, size = 9) => {
      let x = PAGE.margin;
      cols.forEach((c, i) => {
        text(cells[i]!, x + 4, yy, { font, color, size, width: c.w - 8, height: 12, align: c.align, ellipsis: true });
        x += c.w;
      });
    };
    const header = (yy: number) => {
      doc.rect(PAGE.margin, yy - 3, CONTENT_W, 16).fill('#eef2f5');
      row(labels, yy + 1, 'bold', MUTED, 8);
      return yy + 16;
    };
    return { row, header };
  };

  // Header.
  doc.rect(0, 0, PAGE.width, 6).fill(ACCENT);
  text(field.company.name, PAGE.margin, 28, { size: 9, color: MUTED, width: CONTENT_W, align: 'right' });
  text(t('title'), PAGE.margin, 28, { size: 9, color: MUTED });
  // The whole name where it fits: a long one (a register's "Поле у лесополосы за фермой №3, часть 2")
  // is set smaller, down to 11 pt, before it is cut.
  const titleSize = [20, 18, 16, 14, 12, 11].find((size) => doc.font('bold').fontSize(size).widthOfString(field.name) <= CONTENT_W) ?? 11;
  text(field.name, PAGE.margin, 42 + (20 - titleSize) / 2, { font: 'bold', size: titleSize, width: CONTENT_W, height: 24, ellipsis: true });

  // Field details, two columns.
  let y = heading(t('details'), PAGE.margin, 78, CONTENT_W);
  // Statuses stored in Russian (spec 2.3) are named in the reader's language, as the pages name them.
  const known = statusKey(field.status);
  const status = known ? translate(locale, `fields.status_values.${known}`) : (field.status ?? '—');
  const details: [string, string][] = [
    [t('company'), field.company.name],
    [t('field'), field.name],
    [t('owner'), field.owner ?? '—'],
    [t('parcel_number'), field.parcel_number ?? '—'],
    [t('status'), status],
    [t('area'), t('hectares', { value: num(field.area) })],
  ];
  const colW = CONTENT_W / 2;
  details.forEach(([label, value], i) => {
    const x = PAGE.margin + (i % 2) * colW;
    const yy = y + Math.floor(i / 2) * 16;
    text(label, x, yy, { color: MUTED, width: 112, height: 12, ellipsis: true });
    text(value, x + 115, yy, { font: 'bold', width: colW - 122, height: 12, ellipsis: true });
  });
  y += 3 * 16 + 8;

  // Two maps side by side: the zones, and the scan's index image; below them the statistics and histogram.
  const half = (CONTENT_W - 16) / 2;
  const right = PAGE.margin + half + 16;
  const mapTop = heading(t('map'), PAGE.margin, y, half);
  // A drone scan keeps its orthomosaic as its image; a raster of unknown index is just an index.
  const imageTitle = scan?.source === 'drone' ? t('map_orthomosaic') : scan?.indexName === 'index' ? t('map_index_unnamed') : t('map_index', { index: indexLabel });
  heading(scan ? imageTitle : t('index_stats'), right, y, half);
  const mapH = 215;
  drawMap(doc, field.geometry, { x: PAGE.margin, y: mapTop, w: half, h: mapH }, { zones }, locale);
  if (scan?.previewPng && scan.previewBounds) {
    drawMap(doc, field.geometry, { x: right, y: mapTop, w: half, h: mapH }, { image: { png: scan.previewPng, bounds: scan.previewBounds } }, locale);
    if (scan.legend) legend(scan.legend, right + half - 6, mapTop + mapH - 6);
  } else {
    doc.rect(right, mapTop, half, mapH).fill('#f4f6f8');
    text(scan ? t('no_image') : t('no_scan'), right + 12, mapTop + 12, { color: MUTED, width: half - 24, lineBreak: true });
  }
  y = mapTop + mapH + 18;

  if (scan) {
    const statsTop = heading(t('index_stats'), PAGE.margin, y, half);
    heading(t('histogram'), right, y, half);
    const rows: [string, string][] = [
      [t('index'), indexLabel],
      [t('data_date'), scan.capturedAt ? date(new Date(scan.capturedAt)) : '—'],
      [t('mean'), num(scan.stats.mean, 3)],
      [t('median'), num(scan.stats.median, 3)],
      [t('std'), num(scan.stats.std, 3)],
      [t('min'), num(scan.stats.min, 3)],
      [t('max'), num(scan.stats.max, 3)],
    ];
    // How much of the field the scan covers: a drone survey's photos, else its zones.
    const share = (x: number) => pct(x, x < 0.1 ? 1 : 0);
    const coverage = coverageOf(scan.photoCoverage, zones.reduce((s, z) => s + z.areaHa, 0), field.area);
    if (coverage) {
      rows.push([t('coverage'), coverage.kind === 'photos' ? t('coverage_photos', { share: share(coverage.share) }) : t('coverage_zoned', { zoned: num(coverage.zonedHa), field: num(coverage.fieldHa), share: share(coverage.share) })]);
    }
    const step = 13;
    rows.forEach(([label, value], i) => {
      const partial = coverage !== null && i === rows.length - 1 && coverage.share < PARTIAL_COVERAGE;
      text(label, PAGE.margin, statsTop + i * step, { color: MUTED });
      // A long value (the coverage) is set smaller rather than cut.
      const room = half - doc.font('body').fontSize(9).widthOfString(label) - 8;
      const size = [9, 8.5, 8, 7.5, 7].find((sz) => doc.font('bold').fontSize(sz).widthOfString(value) <= room) ?? 7;
      text(value, PAGE.margin, statsTop + i * step + (9 - size) / 2, { font: 'bold', size, width: half, align: 'right', color: partial ? WARNING : INK, height: 12, ellipsis: true });
    });
    drawHistogram(doc, scan, { x: right, y: statsTop, w: half, h: rows.length * step - 12 }, (v) => num(v, 2));
    y = statsTop + rows.length * step + 14;
  }

  // Zones table.
  y = heading(t('zones'), PAGE.margin, y, CONTENT_W);
  if (zones.length === 0) {
    text(t('no_zones'), PAGE.margin, y, { color: MUTED });
    y += 28;
  } else {
    const cols = [
      { key: 'zone_class', w: 45, align: 'left' as const },
      { key: 'zone_name', w: 150, align: 'left' as const },
      { key: 'zone_area', w: 70, align: 'right' as const },
      { key: 'zone_share_field', w: 70, align: 'right' as const },
      { key: 'zone_mean', w: 85, align: 'right' as const },
      { key: 'zone_rate', w: CONTENT_W - 420, align: 'right' as const },
    ];
    const { row, header } = tableOf(cols, cols.map((c) => t(c.key)));
    y = header(y);
    // Shares are of the field, as an agronomist reads them; the ground no zone covers (water, clouds,
    // outside the image) is a row of its own, with the rate the ISOXML prescription gives it.
    const { zonedHa, unzonedHa, shareBasis: basis, rate: unzonedRate, rateIsMean } = unzonedGround(field.area, zones, opts.rates, opts.unzonedRate);
    const shareOf = (ha: number) => (basis > 0 ? pct(ha / basis, 1) : '—');
    const newPageIfFull = () => {
      if (y > FOOTER_Y - 40) {
        doc.addPage();
        y = header(PAGE.margin);
      }
    };
    for (const [i, z] of zones.entries()) {
      newPageIfFull();
      if (i % 2 === 1) doc.rect(PAGE.margin, y - 3, CONTENT_W, 16).fill('#f7f9fa');
      doc.rect(PAGE.margin + 4, y, 9, 9).fill(z.color);
      const rate = opts.rates?.[z.classIndex];
      row(['', localizeZoneName(z.name, locale), num(z.areaHa), shareOf(z.areaHa), num(z.mean, 3), rate === undefined ? '—' : num(rate, 1)], y + 1, 'body');
      text(String(z.classIndex), PAGE.margin + 17, y + 1);
      y += 16;
    }
    if (unzonedHa > 0) {
      newPageIfFull();
      doc.rect(PAGE.margin + 4, y, 9, 9).lineWidth(0.6).strokeColor(MUTED).stroke();
      row(['', t('zone_unzoned'), num(unzonedHa), shareOf(unzonedHa), '—', unzonedRate === null ? '—' : num(unzonedRate, 1)], y + 1, 'body', WARNING);
      y += 16;
    }
    doc.moveTo(PAGE.margin, y).lineTo(PAGE.margin + CONTENT_W, y).lineWidth(0.6).strokeColor(RULE).stroke();
    const totalHa = zonedHa + unzonedHa;
    text(t('total'), PAGE.margin + cols[0]!.w + 4, y + 4, { font: 'bold' });
    text(num(totalHa), PAGE.margin + cols[0]!.w + cols[1]!.w + 4, y + 4, { font: 'bold', width: cols[2]!.w - 8, align: 'right' });
    text(shareOf(totalHa), PAGE.margin + cols[0]!.w + cols[1]!.w + cols[2]!.w + 4, y + 4, { font: 'bold', width: cols[3]!.w - 8, align: 'right' });
    // Under the rates, what they add up to: what the spreader or sprayer must carry for this field.
    const productKg = productTotalKg(zones, opts.rates, { unzonedHa, rate: unzonedRate });
    if (productKg !== null) {
      const x = PAGE.margin + CONTENT_W - cols[5]!.w;
      text(t('product_total', { amount: num(productKg, 0) }), x + 4, y + 4, { font: 'bold', width: cols[5]!.w - 8, align: 'right' });
    }
    y += 20;
    // What that ground gets, said in words too: a terminal spreads it though no zone shows it.
    if (unzonedHa > 0) {
      if (y > FOOTER_Y - 30) {
        doc.addPage();
        y = PAGE.margin;
      }
      const note =
        unzonedRate === null
          ? t('zones_unzoned_note', { area: num(unzonedHa) })
          : t(rateIsMean ? 'zones_unzoned_rate_note' : 'zones_unzoned_set_rate_note', { area: num(unzonedHa), rate: num(unzonedRate, 1) });
      text(note, PAGE.margin, y - 4, { size: 8, color: MUTED, width: CONTENT_W, lineBreak: true });
      y = doc.y + 10;
    }
  }

  // Crop classification, kept on one page: its heading, the crops named and found, the method
  // as it wraps, and the candidates.
  const candidates = scan?.crop?.top_candidates.slice(0, 5) ?? [];
  const methodText = t('crop_method', { index: indexLabel });
  const methodHeight = doc.font('body').fontSize(9).heightOfString(methodText, { width: CONTENT_W });
  const uncertainHeight = scan?.crop && !scan.userCrop && isUncertain(scan.crop) ? 24 : 0;
  const cropHeight = 20 + (scan?.userCrop ? 18 : 0) + (scan?.crop ? 18 + uncertainHeight + methodHeight + 8 + 14 + 14 * candidates.length : scan?.userCrop ? 0 : 18);
  if (y + cropHeight > FOOTER_Y - 10) {
    doc.addPage();
    y = PAGE.margin;
  }
  y = heading(t('crop'), PAGE.margin, y, CONTENT_W);
  const cropName = (id: string) => tOr(`drone.crops.${id}`, id);
  if (scan?.userCrop) {
    text(`${t('crop_type')}:`, PAGE.margin, y, { color: MUTED });
    text(`${cropName(scan.userCrop)} · ${t('crop_named')}`, PAGE.margin + 110, y, { font: 'bold', size: 11 });
    y += 18;
  }
  if (scan?.crop) {
    const crop = scan.crop;
    text(`${scan.userCrop ? t('crop_automatic') : t('crop_type')}:`, PAGE.margin, y, { color: MUTED });
    text(`${cropName(crop.crop_type)} · ${t('confidence')} ${pct(crop.confidence, 0)}`, PAGE.margin + 110, y, { font: scan.userCrop ? 'body' : 'bold', size: 11 });
    y += 18;
    if (!scan.userCrop && isUncertain(crop)) {
      text(t('crop_uncertain'), PAGE.margin + 110, y, { color: WARNING, width: CONTENT_W - 110, lineBreak: true });
      y = doc.y + 6;
    }
    text(methodText, PAGE.margin, y, { color: MUTED, width: CONTENT_W, lineBreak: true });
    y = doc.y + 8;
    text(t('candidates'), PAGE.margin, y, { font: 'bold', size: 8, color: MUTED });
    y += 14;
    for (const c of candidates) {
      text(cropName(c.crop), PAGE.margin, y, { width: 100, ellipsis: true });
      doc.rect(PAGE.margin + 110, y + 1, 250, 8).fill('#eef2f5');
      doc.rect(PAGE.margin + 110, y + 1, 250 * Math.max(0, Math.min(1, c.score)), 8).fill(ACCENT);
      text(pct(c.score, 0), PAGE.margin + 370, y, { width: 40, align: 'right' });
      y += 14;
    }
  } else if (!scan?.userCrop) {
    text(t('no_crop'), PAGE.margin, y, { color: MUTED });
    y += 18;
  }

  // The field's scans over time, this report's in bold: its season among the others.
  const history = opts.history ?? [];
  if (history.length > 1) {
    y += 14;
    if (y > FOOTER_Y - 80) {
      doc.addPage();
      y = PAGE.margin;
    }
    y = heading(t('history'), PAGE.margin, y, CONTENT_W);
    const cols = [
      { label: t('history_date'), w: 185, align: 'left' as const },
      { label: t('history_source'), w: 115, align: 'left' as const },
      { label: t('index'), w: 55, align: 'left' as const },
      { label: t('mean'), w: 60, align: 'right' as const },
      { label: t('crop_type'), w: CONTENT_W - 415, align: 'left' as const },
    ];
    const { row, header } = tableOf(cols, cols.map((c) => c.label));
    y = header(y);
    for (const entry of history) {
      if (y > FOOTER_Y - 24) {
        doc.addPage();
        y = header(PAGE.margin);
      }
      const day = date(new Date(entry.date));
      row(
        [
          entry.dated ? day : t('history_uploaded', { date: day }),
          tOr(`field.source.${entry.source}`, entry.source),
          (entry.indexName ?? '').toUpperCase(),
          num(entry.mean, 3),
          entry.crop ? cropName(entry.crop) : '—',
        ],
        y + 1,
        entry.id === scan?.id ? 'bold' : 'body',
      );
      y += 16;
    }
  }

  // Footer on every page: dates and page numbers.
  const range = doc.bufferedPageRange();
  for (let p = range.start; p < range.start + range.count; p++) {
    doc.switchToPage(p);
    doc.moveTo(PAGE.margin, FOOTER_Y - 6).lineTo(PAGE.width - PAGE.margin, FOOTER_Y - 6).lineWidth(0.6).strokeColor(RULE).stroke();
    const dataDate = scan?.capturedAt ? date(new Date(scan.capturedAt)) : '—';
    text(`${t('data_date')}: ${dataDate}   ·   ${t('report_date')}: ${dateTime(now)}`, PAGE.margin, FOOTER_Y, { size: 7.5, color: MUTED });
    text(t('page', { page: p + 1, pages: range.count }), PAGE.margin, FOOTER_Y, { size: 7.5, color: MUTED, width: CONTENT_W, align: 'right' });
  }
  doc.end();
  return finished;
}

interface Box { x: number; y: number; w: number; h: number }

/** The field fitted into the box with either its zones coloured or the index image, both clipped to the field. */
function drawMap(
  doc: PDFKit.PDFDocument,
  geometry: Polygon | MultiPolygon,
  box: Box,
  layer: { zones: ExportZone[] } | { image: { png: Buffer; bounds: [[number, number], [number, number]] } },
  locale: Locale,
) {
  const pts = parts(geometry).flat(2);
  const lat0 = (Math.min(...pts.map((p) => p[1]!)) + Math.max(...pts.map((p) => p[1]!))) / 2;
  const kx = Math.cos((lat0 * Math.PI) / 180);
  const xs = pts.map((p) => p[0]! * kx), ys = pts.map((p) => p[1]!);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const pad = 20;
  const scale = Math.min((box.w - 2 * pad) / (maxX - minX || 1), (box.h - 2 * pad) / (maxY - minY || 1));
  const ox = box.x + (box.w - (maxX - minX) * scale) / 2;
  const oy = box.y + (box.h - (maxY - minY) * scale) / 2;
  const px = (lon: number) => ox + (lon * kx - minX) * scale;
  const py = (lat: number) => oy + (maxY - lat) * scale;
  const path = (g: Polygon | MultiPolygon) => {
    for (const poly of parts(g)) for (const ring of poly) ring.forEach((p, i) => (i ? doc.lineTo(px(p[0]!), py(p[1]!)) : doc.moveTo(px(p[0]!), py(p[1]!))));
  };

  doc.rect(box.x, box.y, box.w, box.h).fill('#f4f6f8');
  doc.save();
  path(geometry);
  doc.clip('even-odd');
  if ('image' in layer) {
    const [[s, w], [n, e]] = layer.image.bounds;
    doc.image(layer.image.png, px(w), py(n), { width: px(e) - px(w), height: py(s) - py(n) });
  } else {
    doc.rect(box.x, box.y, box.w, box.h).fill('#dfe7d8');
    for (const z of layer.zones) {
      path(z.geometry);
      doc.fillColor(z.color).fill('even-odd');
    }
    for (const z of layer.zones) {
      path(z.geometry);
      doc.lineWidth(0.5).strokeColor('#ffffff').stroke();
    }
  }
  doc.restore();
  path(geometry);
  doc.lineWidth(1.4).strokeColor(INK).stroke();

  // Scale bar: a round number of metres near a quarter of the box.
  const metresPerPt = (1 / scale) * 111_320;
  const target = (box.w / 4) * metresPerPt;
  const bar = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000].reduce((b, v) => (v <= target ? v : b), 10);
  const barPt = bar / metresPerPt;
  // Units as the report's language writes them (Russian: м, км).
  const label = bar >= 1000 ? new Intl.NumberFormat(locale, { style: 'unit', unit: 'kilometer' }).format(bar / 1000) : new Intl.NumberFormat(locale, { style: 'unit', unit: 'meter' }).format(bar);
  doc.font('body').fontSize(7);
  const bx = box.x + 6, by = box.y + box.h - 6;
  doc.roundedRect(bx - 3, by - 10, barPt + doc.widthOfString(label) + 12, 13, 2).fillOpacity(0.85).fill('#ffffff').fillOpacity(1);
  doc.moveTo(bx, by - 3).lineTo(bx + barPt, by - 3).lineWidth(2).strokeColor(INK).stroke();
  doc.fillColor(INK).text(label, bx + barPt + 4, by - 8, { lineBreak: false });
  // North arrow.
  const nx = box.x + box.w - 14, ny = box.y + 10;
  doc.moveTo(nx, ny).lineTo(nx - 4, ny + 10).lineTo(nx + 4, ny + 10).closePath().fill(INK);
  doc.font('bold').fontSize(7).text('N', nx - 2.5, ny + 11, { lineBreak: false });
}

function drawHistogram(doc: PDFKit.PDFDocument, scan: ExportScan, box: Box, fmt: (v: number) => string) {
  const { counts, min, max } = scan.histogram;
  const peak = Math.max(1, ...counts);
  const bw = box.w / Math.max(1, counts.length);
  doc.rect(box.x, box.y, box.w, box.h).fill('#f7f9fa');
  counts.forEach((c, i) => {
    const h = (c / peak) * (box.h - 4);
    const v = min + ((i + 0.5) / counts.length) * (max - min);
    doc.rect(box.x + i * bw + 0.3, box.y + box.h - h, Math.max(0.4, bw - 0.6), h).fill(ramp((v + 0.2) / 1.2));
  });
  if (max > min) {
    const mx = box.x + ((scan.stats.mean - min) / (max - min)) * box.w;
    doc.moveTo(mx, box.y).lineTo(mx, box.y + box.h).dash(2, { space: 2 }).lineWidth(0.8).strokeColor(INK).stroke().undash();
  }
  doc.moveTo(box.x, box.y + box.h).lineTo(box.x + box.w, box.y + box.h).lineWidth(0.6).strokeColor(MUTED).stroke();
  doc.font('body').fontSize(7).fillColor(MUTED);
  doc.text(fmt(min), box.x, box.y + box.h + 3, { lineBreak: false });
  doc.text(fmt(max), box.x, box.y + box.h + 3, { width: box.w, align: 'right', lineBreak: false });
}
