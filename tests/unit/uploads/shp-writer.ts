// Polygon shapefiles written byte by byte, for shapes no GIS would write: a polygon of 20,000 parts, a
// ring wound 30,000 times round one vertex, a grid of 90,000 crossings. Each feature is its rings as
// listed (winding as given), with a NAME column; the .prj is WGS 84 unless given.
import JSZip from 'jszip';

export const WGS84_PRJ = 'GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]';

export type Ring = [number, number][];

export interface ShpFeature {
  rings: Ring[];
  name?: string;
}

/** West, south, east, north of the points. */
function boxOf(points: [number, number][]): [number, number, number, number] {
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of points) [w, s, e, n] = [Math.min(w, x), Math.min(s, y), Math.max(e, x), Math.max(n, y)];
  return [w, s, e, n];
}

function polygonRecord(rings: Ring[]): Buffer {
  const points = rings.flat();
  const content = Buffer.alloc(44 + 4 * rings.length + 16 * points.length);
  content.writeInt32LE(5, 0);
  boxOf(points).forEach((v, i) => content.writeDoubleLE(v, 4 + 8 * i));
  content.writeInt32LE(rings.length, 36);
  content.writeInt32LE(points.length, 40);
  let start = 0;
  rings.forEach((ring, i) => {
    content.writeInt32LE(start, 44 + 4 * i);
    start += ring.length;
  });
  points.forEach(([x, y], i) => {
    content.writeDoubleLE(x, 44 + 4 * rings.length + 16 * i);
    content.writeDoubleLE(y, 44 + 4 * rings.length + 16 * i + 8);
  });
  return content;
}

function header(fileWords: number, box: number[]): Buffer {
  const h = Buffer.alloc(100);
  h.writeInt32BE(9994, 0);
  h.writeInt32BE(fileWords, 24);
  h.writeInt32LE(1000, 28);
  h.writeInt32LE(5, 32);
  box.forEach((v, i) => h.writeDoubleLE(v, 36 + 8 * i));
  return h;
}

function dbf(names: string[]): Buffer {
  const width = 40;
  const head = Buffer.alloc(32 + 32 + 1);
  head.writeUInt8(3, 0);
  head.writeUInt32LE(names.length, 4);
  head.writeUInt16LE(head.length, 8);
  head.writeUInt16LE(1 + width, 10);
  head.write('NAME', 32, 'ascii');
  head.write('C', 32 + 11, 'ascii');
  head.writeUInt8(width, 32 + 16);
  head.writeUInt8(0x0d, 64);
  const rows = names.map((n) => Buffer.from(` ${n.slice(0, width).padEnd(width)}`, 'latin1'));
  return Buffer.concat([head, ...rows, Buffer.from([0x1a])]);
}

/** The files of one polygon layer: `<layer>.shp`, `.shx`, `.dbf` and `.prj` (left out when `prj` is null). */
export function polygonLayer(features: ShpFeature[], opts: { layer?: string; prj?: string | Uint8Array | null } = {}): Record<string, Buffer> {
  const layer = opts.layer ?? 'fields';
  const records = features.map((f) => polygonRecord(f.rings));
  const box = boxOf(features.flatMap((f) => f.rings.flat()));
  const body: Buffer[] = [];
  const index: Buffer[] = [];
  let offsetWords = 50;
  records.forEach((content, i) => {
    const recordHeader = Buffer.alloc(8);
    recordHeader.writeInt32BE(i + 1, 0);
    recordHeader.writeInt32BE(content.length / 2, 4);
    const entry = Buffer.alloc(8);
    entry.writeInt32BE(offsetWords, 0);
    entry.writeInt32BE(content.length / 2, 4);
    body.push(recordHeader, content);
    index.push(entry);
    offsetWords += 4 + content.length / 2;
  });
  const files: Record<string, Buffer> = {
    [`${layer}.shp`]: Buffer.concat([header(offsetWords, box), ...body]),
    [`${layer}.shx`]: Buffer.concat([header(50 + 4 * records.length, box), ...index]),
    [`${layer}.dbf`]: dbf(features.map((f, i) => f.name ?? `F${i + 1}`)),
  };
  if (opts.prj !== null) files[`${layer}.prj`] = Buffer.from(opts.prj ?? WGS84_PRJ);
  return files;
}

/** A ZIP of the files (deflated). */
export async function zipOf(files: Record<string, Uint8Array>): Promise<Uint8Array> {
  const zip = new JSZip();
  for (const [name, data] of Object.entries(files)) zip.file(name, data);
  return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
}

/** A square ring `size` degrees wide with its south-west corner at lon/lat, clockwise as shapefiles draw outer rings. */
export const squareRing = (lon: number, lat: number, size: number): Ring => [[lon, lat], [lon, lat + size], [lon + size, lat + size], [lon + size, lat], [lon, lat]];

/** `count` squares side by side in rows of 150, as one polygon's parts (the probe's 20,000-part polygon). */
export const squaresSideBySide = (count: number, lon = 36, lat = 56): Ring[] =>
  Array.from({ length: count }, (_, i) => squareRing(lon + (i % 150) * 0.0005, lat + Math.floor(i / 150) * 0.0005, 0.0004));
