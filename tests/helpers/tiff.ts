// Small GeoTIFFs made byte by byte, for inputs no real file has (broken headers, odd tags, all
// nodata): the writer sets exactly the tags a test names.
export interface TiffSpec {
  width: number;
  height: number;
  /** Float32 pixels; when shorter than width x height the strip is declared full size anyway. */
  pixels?: Float32Array;
  /** Top-left corner and pixel size in the CRS's units (degrees for EPSG:4326). */
  georef?: { epsg: number; origin: [number, number]; pixel: number };
  compression?: number;
  nodata?: string;
  /** Bands, interleaved by pixel in `pixels` (default 1). */
  bands?: number;
  dateTime?: string;
  gdalMetadata?: string;
  /** The ExtraSamples tag (default: every band after the first unspecified, 0). */
  extraSamples?: number[];
  /**
   * Strips of `rows` rows each stored as `data` (already compressed as `compression` says), in place
   * of `pixels`: a copy for each strip, or one copy every strip points at (`shared`, as a forged file).
   */
  strips?: { rows: number; data: Buffer; shared?: boolean };
}

/** A little-endian float32 TIFF of one strip (or of `strips`), optionally with GeoTIFF and GDAL tags. */
export function tiffBytes(spec: TiffSpec): Buffer {
  const bands = spec.bands ?? 1;
  const pixels = spec.pixels ?? new Float32Array(spec.width * spec.height * bands);
  type Entry = [tag: number, type: number, values: number[] | string];
  const declared = Math.min(0xffffffff, spec.width * spec.height * bands * 4);
  const { strips } = spec;
  const stripCount = strips ? Math.ceil(spec.height / strips.rows) : 1;
  const entries: Entry[] = [
    [256, 4, [spec.width]],
    [257, 4, [spec.height]],
    [258, 3, Array(bands).fill(32)],
    [259, 3, [spec.compression ?? 1]],
    [262, 3, [1]],
    [273, 4, Array(stripCount).fill(0)], // strip offsets, patched below
    [277, 3, [bands]],
    [278, 4, [strips?.rows ?? spec.height]],
    [279, 4, strips ? Array(stripCount).fill(strips.data.length) : [declared]],
  ];
  if (spec.dateTime) entries.push([306, 2, spec.dateTime + '\0']);
  if (bands > 1) entries.push([338, 3, spec.extraSamples ?? Array(bands - 1).fill(0)]);
  entries.push([339, 3, Array(bands).fill(3)]);
  if (spec.georef) {
    const { epsg, origin, pixel } = spec.georef;
    entries.push([33550, 12, [pixel, pixel, 0]], [33922, 12, [0, 0, 0, origin[0], origin[1], 0]]);
    // EPSG:4326 is geographic (model type 2, GeographicTypeGeoKey); any other code is projected.
    const keys = epsg === 4326 ? [1024, 0, 1, 2, 1025, 0, 1, 1, 2048, 0, 1, epsg] : [1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, epsg];
    entries.push([34735, 3, [1, 1, 0, 3, ...keys]]);
  }
  if (spec.gdalMetadata) entries.push([42112, 2, spec.gdalMetadata + '\0']);
  if (spec.nodata) entries.push([42113, 2, spec.nodata + '\0']);
  const size = (t: number) => ({ 2: 1, 3: 2, 4: 4, 12: 8 })[t]!;
  const ifdSize = 2 + entries.length * 12 + 4;
  let extra = 8 + ifdSize;
  const blobs: Array<[number, Buffer]> = [];
  const buf = Buffer.alloc(ifdSize);
  buf.writeUInt16LE(entries.length, 0);
  entries.forEach(([tag, type, values], i) => {
    const count = typeof values === 'string' ? values.length : values.length;
    const data = Buffer.alloc(count * size(type));
    if (typeof values === 'string') data.write(values, 'latin1');
    else values.forEach((v, k) => (type === 3 ? data.writeUInt16LE(v, k * 2) : type === 4 ? data.writeUInt32LE(v, k * 4) : data.writeDoubleLE(v, k * 8)));
    const at = 2 + i * 12;
    buf.writeUInt16LE(tag, at);
    buf.writeUInt16LE(type, at + 2);
    buf.writeUInt32LE(count, at + 4);
    if (data.length <= 4) data.copy(buf, at + 8);
    else {
      buf.writeUInt32LE(extra, at + 8);
      blobs.push([extra, data]);
      extra += data.length;
    }
  });
  const stripOffsets = Array.from({ length: stripCount }, (_, k) => extra + (strips && !strips.shared ? k * strips.data.length : 0));
  if (stripCount === 1) buf.writeUInt32LE(stripOffsets[0]!, 2 + 5 * 12 + 8);
  else stripOffsets.forEach((o, k) => blobs.find(([at]) => at === buf.readUInt32LE(2 + 5 * 12 + 8))![1].writeUInt32LE(o, 4 * k));
  const header = Buffer.from([0x49, 0x49, 42, 0, 8, 0, 0, 0]);
  const data = strips ? Array<Buffer>(strips.shared ? 1 : stripCount).fill(strips.data) : [Buffer.from(pixels.buffer)];
  return Buffer.concat([header, buf, ...blobs.map(([, b]) => b), ...data]);
}

/**
 * A one-band index GeoTIFF in lon/lat whose every pixel is nodata: it passes every check an upload
 * makes and overlaps `field`, so its zoning task fails (no valid pixels) only once it runs.
 */
export function allNodataIndexTiff(): { bytes: Buffer; field: { type: 'Polygon'; coordinates: number[][][] } } {
  const [west, north, pixel, width, height] = [20, 50, 0.0001, 40, 30];
  const bytes = tiffBytes({ width, height, pixels: new Float32Array(width * height).fill(-9999), nodata: '-9999', georef: { epsg: 4326, origin: [west, north], pixel } });
  const [w, e, s, n] = [west + 10 * pixel, west + 30 * pixel, north - 20 * pixel, north - 10 * pixel];
  return { bytes, field: { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] } };
}

/**
 * A one-band index GeoTIFF in lon/lat whose values rise from 0.1 in the west to 0.9 in the east, and
 * a field of about 12 ha inside it: its zoning task succeeds in a moment, making a scan with zones.
 */
export function gradientIndexTiff(): { bytes: Buffer; field: { type: 'Polygon'; coordinates: number[][][] } } {
  const [west, north, pixel, width, height] = [21, 49, 0.0001, 60, 40];
  const pixels = new Float32Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) pixels[y * width + x] = 0.1 + (0.8 * x) / (width - 1);
  const bytes = tiffBytes({ width, height, pixels, nodata: '-9999', georef: { epsg: 4326, origin: [west, north], pixel } });
  const [w, e, s, n] = [west + 5 * pixel, west + 55 * pixel, north - 35 * pixel, north - 5 * pixel];
  return { bytes, field: { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] } };
}
