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
  const now = opts.now ?? new Date();
  const formats = formatsFor(opts.locale, opts.timeZone);
  const { doc, finished } = openDocument({ Title: `${formats.t('title')}: ${field.name}`, Author: field.company.name, Creator: 'Fieldmap', CreationDate: now });
  const r: Report = { ...formats, doc };
  drawTitle(r, field);
  let y = drawDetails(r, field, 78);
  y = drawMaps(r, field, scan, zones, y);
  if (scan) y = drawScanStats(r, field, scan, zones, y);
  y = drawZones(r, field, zones, opts, y);
  y = drawCrop(r, scan, y);
  drawHistory(r, scan, opts.history ?? [], y);
  drawFooters(r, scan, now);
  doc.end();
  return finished;
}

/** The report's language: its labels, and how it writes numbers, shares and dates. */
interface Formats {
  locale: Locale;
  /** A label under `report`. */
  t: (key: string, params?: Record<string, string | number>) => string;
  /** A translation from another namespace, or the raw value when there is none. */
  tOr: (key: string, raw: string) => string;
  num: (x: number | null | undefined, digits?: number) => string;
  pct: (share: number, digits: number) => string;
  date: (d: Date) => string;
  dateTime: (d: Date) => string;
}

/** What every section draws with: the document, and the report's language. */
interface Report extends Formats {
  doc: PDFKit.PDFDocument;
}

function formatsFor(locale: Locale, timeZone: string | undefined): Formats {
  return {
    locale,
    t: (key, params = {}) => translate(locale, `report.${key}`, params),
    tOr: (key, raw) => { const s = translate(locale, key); return s === key ? raw : s; },
    num: (x, digits = 2) =>
      x === null || x === undefined || !Number.isFinite(x) ? '—' : new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x),
    // A share as the language writes one: `30.3%` in English, `30,3 %` in Russian and Slovak.
    pct: (share, digits) => new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: digits, maximumFractionDigits: digits }).format(share),
    // Capture dates are days as the files wrote them (read as UTC, as on the pages); the report's own
    // time is written in the company's zone, and named.
    date: (d) => new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(d),
    dateTime: (d) =>
      new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'long', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short', timeZone: timeZone ?? 'UTC' }).format(d),
  };
}

/** An A4 document with DejaVu Sans as `body` and `bold`, and the bytes it will have once ended. */
function openDocument(info: PDFKit.DocumentInfo): { doc: PDFKit.PDFDocument; finished: Promise<Buffer> } {
  const fonts = fontPaths();
  const doc = new PDFDocument({ size: 'A4', margin: PAGE.margin, bufferPages: true, font: fonts.regular, info });
  doc.registerFont('body', fonts.regular);
  doc.registerFont('bold', fonts.bold);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const finished = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  return { doc, finished };
}

type TextStyle = PDFKit.Mixins.TextOptions & { font?: string; size?: number; color?: string };

/** One line of text (unless `lineBreak` says otherwise), 9 pt body ink by default. */
function text(doc: PDFKit.PDFDocument, s: string, x: number, y: number, o: TextStyle = {}): void {
  const { font = 'body', size = 9, color = INK, ...rest } = o;
  doc.font(font).fontSize(size).fillColor(color).text(s, x, y, { lineBreak: false, ...rest });
}

/** A section's heading in capitals over a rule; answers where its content starts. */
function heading(doc: PDFKit.PDFDocument, s: string, x: number, y: number, w: number): number {
  text(doc, s.toUpperCase(), x, y, { font: 'bold', size: 9, color: ACCENT, characterSpacing: 0.6 });
  doc.moveTo(x, y + 13).lineTo(x + w, y + 13).lineWidth(0.6).strokeColor(RULE).stroke();
  return y + 20;
}

/** `y`, or the top of a new page when `full`. */
function freshPageIf(doc: PDFKit.PDFDocument, full: boolean, y: number): number {
  if (!full) return y;
  doc.addPage();
  return PAGE.margin;
}

interface Column { w: number; align: 'left' | 'right' }

/** A table's row writer, and its header drawn at `yy` (answering where the rows start). */
interface Table {
  row: (cells: string[], yy: number, font: string, color?: string, size?: number) => void;
  header: (yy: number) => number;
}

function tableOf(doc: PDFKit.PDFDocument, cols: Column[], labels: string[]): Table {
  const row = (cells: string[], yy: number, font: string, color = INK, size = 9) => {
    let x = PAGE.margin;
    cols.forEach((c, i) => {
      text(doc, cells[i]!, x + 4, yy, { font, color, size, width: c.w - 8, height: 12, align: c.align, ellipsis: true });
      x += c.w;
    });
  };
  const header = (yy: number) => {
    doc.rect(PAGE.margin, yy - 3, CONTENT_W, 16).fill('#eef2f5');
    row(labels, yy + 1, 'bold', MUTED, 8);
    return yy + 16;
  };
  return { row, header };
}

/** Where the next row goes: `y`, or under the table's header on a new page when fewer than `room` points are left. */
function rowOnPage(doc: PDFKit.PDFDocument, table: Table, y: number, room: number): number {
  if (!(y > FOOTER_Y - room)) return y;
  doc.addPage();
  return table.header(PAGE.margin);
}

/** The accent band, the company and the report's name, and the field's name as large as fits. */
function drawTitle({ doc, t }: Report, field: ExportField): void {
  doc.rect(0, 0, PAGE.width, 6).fill(ACCENT);
  text(doc, field.company.name, PAGE.margin, 28, { size: 9, color: MUTED, width: CONTENT_W, align: 'right' });
  text(doc, t('title'), PAGE.margin, 28, { size: 9, color: MUTED });
  // The whole name where it fits: a long one (a register's "Поле у лесополосы за фермой №3, часть 2")
  // is set smaller, down to 11 pt, before it is cut.
  const titleSize = [20, 18, 16, 14, 12, 11].find((size) => doc.font('bold').fontSize(size).widthOfString(field.name) <= CONTENT_W) ?? 11;
  text(doc, field.name, PAGE.margin, 42 + (20 - titleSize) / 2, { font: 'bold', size: titleSize, width: CONTENT_W, height: 24, ellipsis: true });
}

/** The field's details in two columns under their heading at `top`; answers where the next section starts. */
function drawDetails(r: Report, field: ExportField, top: number): number {
  const { doc } = r;
  const y = heading(doc, r.t('details'), PAGE.margin, top, CONTENT_W);
  const colW = CONTENT_W / 2;
  fieldDetails(r, field).forEach(([label, value], i) => {
    const x = PAGE.margin + (i % 2) * colW;
    const yy = y + Math.floor(i / 2) * 16;
    text(doc, label, x, yy, { color: MUTED, width: 112, height: 12, ellipsis: true });
    text(doc, value, x + 115, yy, { font: 'bold', width: colW - 122, height: 12, ellipsis: true });
  });
  return y + 3 * 16 + 8;
}

/** The details' labels and values, row by row. */
function fieldDetails({ locale, t, num }: Formats, field: ExportField): [string, string][] {
  // Statuses stored in Russian (spec 2.3) are named in the reader's language, as the pages name them.
  const known = statusKey(field.status);
  const status = known ? translate(locale, `fields.status_values.${known}`) : (field.status ?? '—');
  return [
    [t('company'), field.company.name],
    [t('field'), field.name],
    [t('owner'), field.owner ?? '—'],
    [t('parcel_number'), field.parcel_number ?? '—'],
    [t('status'), status],
    [t('area'), t('hectares', { value: num(field.area) })],
  ];
}

// Two columns side by side: the maps, then the statistics and the histogram.
const HALF = (CONTENT_W - 16) / 2;
const RIGHT_X = PAGE.margin + HALF + 16;
const MAP_H = 215;

/** The scan's index by name: the pages' name for it where they have one. */
function indexLabel({ tOr }: Formats, scan: ExportScan): string {
  return tOr(`drone.index_${scan.indexName.toLowerCase()}_name`, scan.indexName.toUpperCase());
}

/** A drone scan keeps its orthomosaic as its image; a raster of unknown index is just an index. */
function imageTitle(f: Formats, scan: ExportScan): string {
  if (scan.source === 'drone') return f.t('map_orthomosaic');
  return scan.indexName === 'index' ? f.t('map_index_unnamed') : f.t('map_index', { index: indexLabel(f, scan) });
}

/** The zones' map, and beside it the scan's image with its legend, or why there is none; answers where the next section starts. */
function drawMaps(r: Report, field: ExportField, scan: ExportScan | null, zones: ExportZone[], y: number): number {
  const { doc, t, locale } = r;
  const mapTop = heading(doc, t('map'), PAGE.margin, y, HALF);
  heading(doc, scan ? imageTitle(r, scan) : t('index_stats'), RIGHT_X, y, HALF);
  drawMap(doc, field.geometry, { x: PAGE.margin, y: mapTop, w: HALF, h: MAP_H }, { zones }, locale);
  if (scan?.previewPng && scan.previewBounds) {
    drawMap(doc, field.geometry, { x: RIGHT_X, y: mapTop, w: HALF, h: MAP_H }, { image: { png: scan.previewPng, bounds: scan.previewBounds } }, locale);
    if (scan.legend) drawLegend(r, scan.legend, RIGHT_X + HALF - 6, mapTop + MAP_H - 6);
  } else {
    doc.rect(RIGHT_X, mapTop, HALF, MAP_H).fill('#f4f6f8');
    text(doc, scan ? t('no_image') : t('no_scan'), RIGHT_X + 12, mapTop + 12, { color: MUTED, width: HALF - 24, lineBreak: true });
  }
  return mapTop + MAP_H + 18;
}

/**
 * What the index image's colours mean, drawn up and left of (`right`, `bottom`), the lower right
 * corner of the map (the scale bar has the left one): the ramp as a bar (a PDF gradient through the
 * ticks' colours, which are the ramp's stops) and the values under it.
 */
function drawLegend({ doc, num }: Report, l: PreviewLegend, right: number, bottom: number): void {
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
    text(doc, label, at, y + 13, { size: 6.5 });
  });
}

/** The scan's statistics beside its histogram; answers where the next section starts. */
function drawScanStats(r: Report, field: ExportField, scan: ExportScan, zones: ExportZone[], y: number): number {
  const { doc, t, num } = r;
  const statsTop = heading(doc, t('index_stats'), PAGE.margin, y, HALF);
  heading(doc, t('histogram'), RIGHT_X, y, HALF);
  const { rows, partialCoverage } = scanStatRows(r, field, scan, zones);
  const step = 13;
  rows.forEach(([label, value], i) => drawStatRow(doc, label, value, statsTop + i * step, partialCoverage && i === rows.length - 1));
  drawHistogram(doc, scan, { x: RIGHT_X, y: statsTop, w: HALF, h: rows.length * step - 12 }, (v) => num(v, 2));
  return statsTop + rows.length * step + 14;
}

/** The statistics' labels and values; the coverage, when known, comes last and is flagged when partial. */
function scanStatRows(f: Formats, field: ExportField, scan: ExportScan, zones: ExportZone[]): { rows: [string, string][]; partialCoverage: boolean } {
  const { t, num, pct, date } = f;
  const rows: [string, string][] = [
    [t('index'), indexLabel(f, scan)],
    [t('data_date'), scan.capturedAt ? date(new Date(scan.capturedAt)) : '—'],
    [t('mean'), num(scan.stats.mean, 3)],
    [t('median'), num(scan.stats.median, 3)],
    [t('std'), num(scan.stats.std, 3)],
    [t('min'), num(scan.stats.min, 3)],
    [t('max'), num(scan.stats.max, 3)],
  ];
  // How much of the field the scan covers: a drone survey's photos, else its zones.
  const coverage = coverageOf(scan.photoCoverage, zones.reduce((s, z) => s + z.areaHa, 0), field.area);
  if (!coverage) return { rows, partialCoverage: false };
  const share = (x: number) => pct(x, x < 0.1 ? 1 : 0);
  rows.push([t('coverage'), coverage.kind === 'photos' ? t('coverage_photos', { share: share(coverage.share) }) : t('coverage_zoned', { zoned: num(coverage.zonedHa), field: num(coverage.fieldHa), share: share(coverage.share) })]);
  return { rows, partialCoverage: coverage.share < PARTIAL_COVERAGE };
}

function drawStatRow(doc: PDFKit.PDFDocument, label: string, value: string, y: number, warn: boolean): void {
  text(doc, label, PAGE.margin, y, { color: MUTED });
  // A long value (the coverage) is set smaller rather than cut.
  const room = HALF - doc.font('body').fontSize(9).widthOfString(label) - 8;
  const size = [9, 8.5, 8, 7.5, 7].find((sz) => doc.font('bold').fontSize(sz).widthOfString(value) <= room) ?? 7;
  text(doc, value, PAGE.margin, y + (9 - size) / 2, { font: 'bold', size, width: HALF, align: 'right', color: warn ? WARNING : INK, height: 12, ellipsis: true });
}

const ZONE_COLUMNS: (Column & { key: string })[] = [
  { key: 'zone_class', w: 45, align: 'left' },
  { key: 'zone_name', w: 150, align: 'left' },
  { key: 'zone_area', w: 70, align: 'right' },
  { key: 'zone_share_field', w: 70, align: 'right' },
  { key: 'zone_mean', w: 85, align: 'right' },
  { key: 'zone_rate', w: CONTENT_W - 420, align: 'right' },
];

type Ground = ReturnType<typeof unzonedGround>;

/** A share of the field, as an agronomist reads them (not of the zoned ground). */
function fieldShare({ pct }: Formats, ha: number, ground: Ground): string {
  return ground.shareBasis > 0 ? pct(ha / ground.shareBasis, 1) : '—';
}

/** The zones table with its totals, or a line saying there are no zones; answers where the next section starts. */
function drawZones(r: Report, field: ExportField, zones: ExportZone[], opts: ReportOptions, top: number): number {
  const { doc, t } = r;
  const y = heading(doc, t('zones'), PAGE.margin, top, CONTENT_W);
  if (zones.length === 0) {
    text(doc, t('no_zones'), PAGE.margin, y, { color: MUTED });
    return y + 28;
  }
  const table = tableOf(doc, ZONE_COLUMNS, ZONE_COLUMNS.map((c) => t(c.key)));
  // The ground no zone covers (water, clouds, outside the image) is a row of its own, with the rate
  // the ISOXML prescription gives it.
  const ground = unzonedGround(field.area, zones, opts.rates, opts.unzonedRate);
  const rowsEnd = drawZoneRows(r, table, zones, ground, opts.rates, table.header(y));
  const totalsEnd = drawZoneTotals(r, zones, ground, opts.rates, rowsEnd);
  return ground.unzonedHa > 0 ? drawUnzonedNote(r, ground, totalsEnd) : totalsEnd;
}

/** A row per zone, then one for the unzoned ground, going on over the page under the header when full. */
function drawZoneRows(r: Report, table: Table, zones: ExportZone[], ground: Ground, rates: Rates | undefined, top: number): number {
  const { doc, locale, t, num } = r;
  let y = top;
  for (const [i, z] of zones.entries()) {
    y = rowOnPage(doc, table, y, 40);
    if (i % 2 === 1) doc.rect(PAGE.margin, y - 3, CONTENT_W, 16).fill('#f7f9fa');
    doc.rect(PAGE.margin + 4, y, 9, 9).fill(z.color);
    const rate = rates?.[z.classIndex];
    table.row(['', localizeZoneName(z.name, locale), num(z.areaHa), fieldShare(r, z.areaHa, ground), num(z.mean, 3), rate === undefined ? '—' : num(rate, 1)], y + 1, 'body');
    text(doc, String(z.classIndex), PAGE.margin + 17, y + 1);
    y += 16;
  }
  if (ground.unzonedHa > 0) {
    y = rowOnPage(doc, table, y, 40);
    doc.rect(PAGE.margin + 4, y, 9, 9).lineWidth(0.6).strokeColor(MUTED).stroke();
    table.row(['', t('zone_unzoned'), num(ground.unzonedHa), fieldShare(r, ground.unzonedHa, ground), '—', ground.rate === null ? '—' : num(ground.rate, 1)], y + 1, 'body', WARNING);
    y += 16;
  }
  return y;
}

/** The totals under a rule: area, share and, under the rates, the product they add up to. */
function drawZoneTotals(r: Report, zones: ExportZone[], ground: Ground, rates: Rates | undefined, y: number): number {
  const { doc, t, num } = r;
  const w = ZONE_COLUMNS.map((c) => c.w);
  doc.moveTo(PAGE.margin, y).lineTo(PAGE.margin + CONTENT_W, y).lineWidth(0.6).strokeColor(RULE).stroke();
  const totalHa = ground.zonedHa + ground.unzonedHa;
  text(doc, t('total'), PAGE.margin + w[0]! + 4, y + 4, { font: 'bold' });
  text(doc, num(totalHa), PAGE.margin + w[0]! + w[1]! + 4, y + 4, { font: 'bold', width: w[2]! - 8, align: 'right' });
  text(doc, fieldShare(r, totalHa, ground), PAGE.margin + w[0]! + w[1]! + w[2]! + 4, y + 4, { font: 'bold', width: w[3]! - 8, align: 'right' });
  // What the spreader or sprayer must carry for this field.
  const productKg = productTotalKg(zones, rates, ground);
  if (productKg !== null) {
    const x = PAGE.margin + CONTENT_W - w[5]!;
    text(doc, t('product_total', { amount: num(productKg, 0) }), x + 4, y + 4, { font: 'bold', width: w[5]! - 8, align: 'right' });
  }
  return y + 20;
}

/** What the unzoned ground gets, said in words too: a terminal spreads it though no zone shows it. */
function drawUnzonedNote({ doc, t, num }: Report, ground: Ground, top: number): number {
  const y = freshPageIf(doc, top > FOOTER_Y - 30, top);
  const note =
    ground.rate === null
      ? t('zones_unzoned_note', { area: num(ground.unzonedHa) })
      : t(ground.rateIsMean ? 'zones_unzoned_rate_note' : 'zones_unzoned_set_rate_note', { area: num(ground.unzonedHa), rate: num(ground.rate, 1) });
  text(doc, note, PAGE.margin, y - 4, { size: 8, color: MUTED, width: CONTENT_W, lineBreak: true });
  return doc.y + 10;
}

function cropName({ tOr }: Formats, id: string): string {
  return tOr(`drone.crops.${id}`, id);
}

type Candidate = NonNullable<ExportScan['crop']>['top_candidates'][number];

/**
 * The crop classification, kept on one page: its heading, the crops named and found, the method
 * as it wraps, and the candidates. Answers where the next section starts.
 */
function drawCrop(r: Report, scan: ExportScan | null, top: number): number {
  const { doc, t } = r;
  const candidates = scan?.crop?.top_candidates.slice(0, 5) ?? [];
  const methodText = t('crop_method', { index: scan ? indexLabel(r, scan) : '' });
  const height = cropSectionHeight(doc, scan, methodText, candidates.length);
  let y = heading(doc, t('crop'), PAGE.margin, freshPageIf(doc, top + height > FOOTER_Y - 10, top), CONTENT_W);
  if (scan?.userCrop) {
    text(doc, `${t('crop_type')}:`, PAGE.margin, y, { color: MUTED });
    text(doc, `${cropName(r, scan.userCrop)} · ${t('crop_named')}`, PAGE.margin + 110, y, { font: 'bold', size: 11 });
    y += 18;
  }
  if (scan?.crop) return drawClassification(r, scan, scan.crop, methodText, candidates, y);
  if (scan?.userCrop) return y;
  text(doc, t('no_crop'), PAGE.margin, y, { color: MUTED });
  return y + 18;
}

/** The height `drawCrop` takes, measured as it will be drawn. */
function cropSectionHeight(doc: PDFKit.PDFDocument, scan: ExportScan | null, methodText: string, candidateCount: number): number {
  const methodHeight = doc.font('body').fontSize(9).heightOfString(methodText, { width: CONTENT_W });
  const uncertainHeight = scan?.crop && !scan.userCrop && isUncertain(scan.crop) ? 24 : 0;
  return 20 + (scan?.userCrop ? 18 : 0) + (scan?.crop ? 18 + uncertainHeight + methodHeight + 8 + 14 + 14 * candidateCount : scan?.userCrop ? 0 : 18);
}

/** The classifier's crop (under the user's, when one is named, and then not in bold), its method and its candidates. */
function drawClassification(r: Report, scan: ExportScan, crop: NonNullable<ExportScan['crop']>, methodText: string, candidates: Candidate[], top: number): number {
  const { doc, t, pct } = r;
  let y = top;
  text(doc, `${scan.userCrop ? t('crop_automatic') : t('crop_type')}:`, PAGE.margin, y, { color: MUTED });
  text(doc, `${cropName(r, crop.crop_type)} · ${t('confidence')} ${pct(crop.confidence, 0)}`, PAGE.margin + 110, y, { font: scan.userCrop ? 'body' : 'bold', size: 11 });
  y += 18;
  if (!scan.userCrop && isUncertain(crop)) {
    text(doc, t('crop_uncertain'), PAGE.margin + 110, y, { color: WARNING, width: CONTENT_W - 110, lineBreak: true });
    y = doc.y + 6;
  }
  text(doc, methodText, PAGE.margin, y, { color: MUTED, width: CONTENT_W, lineBreak: true });
  y = doc.y + 8;
  text(doc, t('candidates'), PAGE.margin, y, { font: 'bold', size: 8, color: MUTED });
  y += 14;
  for (const c of candidates) {
    text(doc, cropName(r, c.crop), PAGE.margin, y, { width: 100, ellipsis: true });
    doc.rect(PAGE.margin + 110, y + 1, 250, 8).fill('#eef2f5');
    doc.rect(PAGE.margin + 110, y + 1, 250 * Math.max(0, Math.min(1, c.score)), 8).fill(ACCENT);
    text(doc, pct(c.score, 0), PAGE.margin + 370, y, { width: 40, align: 'right' });
    y += 14;
  }
  return y;
}

/** The field's scans over time when there is more than one, this report's in bold: its season among the others. */
function drawHistory(r: Report, scan: ExportScan | null, history: ExportScanEntry[], top: number): number {
  if (history.length <= 1) return top;
  const { doc, t } = r;
  const start = top + 14;
  const cols: (Column & { label: string })[] = [
    { label: t('history_date'), w: 185, align: 'left' },
    { label: t('history_source'), w: 115, align: 'left' },
    { label: t('index'), w: 55, align: 'left' },
    { label: t('mean'), w: 60, align: 'right' },
    { label: t('crop_type'), w: CONTENT_W - 415, align: 'left' },
  ];
  const y0 = heading(doc, t('history'), PAGE.margin, freshPageIf(doc, start > FOOTER_Y - 80, start), CONTENT_W);
  const table = tableOf(doc, cols, cols.map((c) => c.label));
  let y = table.header(y0);
  for (const entry of history) {
    y = rowOnPage(doc, table, y, 24);
    table.row(historyCells(r, entry), y + 1, entry.id === scan?.id ? 'bold' : 'body');
    y += 16;
  }
  return y;
}

function historyCells(f: Formats, entry: ExportScanEntry): string[] {
  const day = f.date(new Date(entry.date));
  return [
    entry.dated ? day : f.t('history_uploaded', { date: day }),
    f.tOr(`field.source.${entry.source}`, entry.source),
    (entry.indexName ?? '').toUpperCase(),
    f.num(entry.mean, 3),
    entry.crop ? cropName(f, entry.crop) : '—',
  ];
}

/** On every page, under a rule: the data's date, when the report was made, and the page number. */
function drawFooters({ doc, t, date, dateTime }: Report, scan: ExportScan | null, now: Date): void {
  const range = doc.bufferedPageRange();
  const dataDate = scan?.capturedAt ? date(new Date(scan.capturedAt)) : '—';
  for (let p = range.start; p < range.start + range.count; p++) {
    doc.switchToPage(p);
    doc.moveTo(PAGE.margin, FOOTER_Y - 6).lineTo(PAGE.width - PAGE.margin, FOOTER_Y - 6).lineWidth(0.6).strokeColor(RULE).stroke();
    text(doc, `${t('data_date')}: ${dataDate}   ·   ${t('report_date')}: ${dateTime(now)}`, PAGE.margin, FOOTER_Y, { size: 7.5, color: MUTED });
    text(doc, t('page', { page: p + 1, pages: range.count }), PAGE.margin, FOOTER_Y, { size: 7.5, color: MUTED, width: CONTENT_W, align: 'right' });
  }
}

interface Box { x: number; y: number; w: number; h: number }

/** Longitude/latitude to page points: the geometry fitted into the box, centred, east-west shrunk for its latitude. */
interface Projection { px: (lon: number) => number; py: (lat: number) => number; scale: number }

function fitToBox(geometry: Polygon | MultiPolygon, box: Box): Projection {
  const pts = parts(geometry).flat(2);
  const lat0 = (Math.min(...pts.map((p) => p[1]!)) + Math.max(...pts.map((p) => p[1]!))) / 2;
  const kx = Math.cos((lat0 * Math.PI) / 180);
  const xs = pts.map((p) => p[0]! * kx), ys = pts.map((p) => p[1]!);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const pad = 20;
  const scale = Math.min((box.w - 2 * pad) / (maxX - minX || 1), (box.h - 2 * pad) / (maxY - minY || 1));
  const ox = box.x + (box.w - (maxX - minX) * scale) / 2;
  const oy = box.y + (box.h - (maxY - minY) * scale) / 2;
  return { px: (lon) => ox + (lon * kx - minX) * scale, py: (lat) => oy + (maxY - lat) * scale, scale };
}

/** The field fitted into the box with either its zones coloured or the index image, both clipped to the field. */
function drawMap(
  doc: PDFKit.PDFDocument,
  geometry: Polygon | MultiPolygon,
  box: Box,
  layer: { zones: ExportZone[] } | { image: { png: Buffer; bounds: [[number, number], [number, number]] } },
  locale: Locale,
) {
  const { px, py, scale } = fitToBox(geometry, box);
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
  drawScaleBar(doc, box, scale, locale);
  drawNorthArrow(doc, box);
}

/** In the box's lower left corner: a round number of metres near a quarter of its width. */
function drawScaleBar(doc: PDFKit.PDFDocument, box: Box, scale: number, locale: Locale): void {
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
}

function drawNorthArrow(doc: PDFKit.PDFDocument, box: Box): void {
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
