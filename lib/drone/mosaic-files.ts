// The mosaic's files beside the raw copy the analysis reads: the GDAL header (VRT) over the raw pixels
// the COG is written from, and the WGS84 web preview sampled band by band as rows are composited.
import sharp from 'sharp';
import { AppError } from '@/lib/errors';
import { freeBytes } from '@/lib/free-space';
import type { UtmFrame } from './frame';

/**
 * Disk bytes a mosaic of W x H pixels of `stride` bytes takes while it is written: the raw copy, its
 * overviews (a third more) and the COG, allowed half the raw copy (DEFLATE on multispectral bands;
 * JPEG takes far less). The index beside it is a sixteenth of that or less.
 */
export const mosaicWorkBytes = (W: number, H: number, stride: number) => Math.ceil(W * H * stride * (4 / 3 + 1 / 2));

/**
 * Throws `drone_mosaic_no_space` (507, final) when the disk under `dir` has less than `bytes` free,
 * before any of it is written: a survey too large for the disk (or photos declaring huge frames)
 * ends with a reason instead of filling the disk every other task and upload shares.
 */
export async function ensureMosaicSpace(dir: string, bytes: number): Promise<void> {
  const free = await freeBytes(dir);
  if (free === null) return;
  const gb = (b: number) => Math.ceil(b / 1e8) / 10;
  if (free < bytes) throw new AppError('insufficient_storage', 'drone_mosaic_no_space', { need_gb: gb(bytes), free_gb: Math.floor(free / 1e8) / 10 });
}

/** How rawVrt lays out the raw copy's alpha and overviews. */
export interface RawVrtLayout {
  /** The alpha as the dataset's mask rather than a band (a JPEG COG keeps it so). */
  alphaAsMask?: boolean;
  /** VRTs of the overviews (the same layout), finest first. */
  overviews?: string[];
}

/** GDAL's header over a pixel-interleaved raw file of Byte bands, the last of `names` its alpha. */
export function rawVrt(file: string, W: number, H: number, names: string[], frame: UtmFrame, gt: number[], layout: RawVrtLayout = {}): string {
  const interp: Record<string, string> = { red: 'Red', green: 'Green', blue: 'Blue', alpha: 'Alpha' };
  const band = (b: number, attrs: string, inner: string) => `<VRTRasterBand dataType="Byte"${attrs} subClass="VRTRawRasterBand">${inner}
    <SourceFilename relativeToVRT="1">${file}</SourceFilename>
    <ImageOffset>${b}</ImageOffset>
    <PixelOffset>${names.length}</PixelOffset>
    <LineOffset>${names.length * W}</LineOffset>
  </VRTRasterBand>`;
  const shown = layout.alphaAsMask ? names.slice(0, -1) : names;
  const overviewsOf = (sourceBand: string) => (layout.overviews ?? []).map((o) => `
    <Overview><SourceFilename relativeToVRT="1">${o}</SourceFilename><SourceBand>${sourceBand}</SourceBand></Overview>`).join('');
  const bandsXml = shown.map((name, b) => `  ${band(b, ` band="${b + 1}"`, `
    <Description>${name}</Description>
    <ColorInterp>${interp[name] ?? 'Undefined'}</ColorInterp>${overviewsOf(String(b + 1))}`)}`).join('\n');
  // The mask has its overviews too (the overviews' own masks): else GDAL makes the COG's mask overviews
  // again from the whole mask, which costs a read of it and can disagree with the halved pixels.
  const mask = layout.alphaAsMask ? `  <MaskBand>
    ${band(names.length - 1, '', overviewsOf('mask,1'))}
  </MaskBand>
` : '';
  return `<VRTDataset rasterXSize="${W}" rasterYSize="${H}">
  <SRS>EPSG:${frame.epsg}</SRS>
  <GeoTransform>${gt.join(', ')}</GeoTransform>
${mask}${bandsXml}
</VRTDataset>
`;
}

const PREVIEW_MAX = 2048;

/**
 * Preview resampled onto a lon/lat grid, so a web map can lay it over its WGS84 bounds unrotated,
 * filled band by band as the mosaic's rows are composited. Over a field-sized area the UTM -> lon/lat
 * mapping is affine to well under a pixel.
 */
export class PreviewSampler {
  readonly boundsWgs84: [number, number, number, number];
  private readonly pw: number;
  private readonly ph: number;
  private readonly img: Buffer;
  /** Preview pixels sorted by the mosaic row they sample, with that row's first entry in `rowStart`. */
  private readonly order: Int32Array;
  private readonly rowStart: Int32Array;
  private readonly srcCol: Int32Array;

  constructor(W: number, H: number, frame: UtmFrame, gt: number[]) {
    const [x0, gsd, , y0] = gt as [number, number, number, number];
    const corners = [[x0, y0], [x0 + W * gsd, y0], [x0, y0 - H * gsd], [x0 + W * gsd, y0 - H * gsd]].map(([e, n]) => frame.toWgs84(e!, n!));
    const west = Math.min(...corners.map((c) => c[0])), east = Math.max(...corners.map((c) => c[0]));
    const south = Math.min(...corners.map((c) => c[1])), north = Math.max(...corners.map((c) => c[1]));
    this.boundsWgs84 = [west, south, east, north];
    const midLat = ((south + north) / 2) * (Math.PI / 180);
    const aspect = ((east - west) * Math.cos(midLat)) / (north - south);
    const pw = (this.pw = aspect >= 1 ? PREVIEW_MAX : Math.max(1, Math.round(PREVIEW_MAX * aspect)));
    const ph = (this.ph = aspect >= 1 ? Math.max(1, Math.round(PREVIEW_MAX / aspect)) : PREVIEW_MAX);
    this.img = Buffer.alloc(pw * ph * 4);
    const [oE, oN] = frame.toUtm(west, north);
    const [eE, eN] = frame.toUtm(east, north);
    const [sE, sN] = frame.toUtm(west, south);
    const dEx = (eE - oE) / pw, dNx = (eN - oN) / pw, dEy = (sE - oE) / ph, dNy = (sN - oN) / ph;
    const srcRow = new Int32Array(pw * ph).fill(-1);
    this.srcCol = new Int32Array(pw * ph);
    const counts = new Int32Array(H + 1);
    for (let y = 0; y < ph; y++) {
      for (let x = 0; x < pw; x++) {
        const e = oE + (x + 0.5) * dEx + (y + 0.5) * dEy, n = oN + (x + 0.5) * dNx + (y + 0.5) * dNy;
        const c = Math.floor((e - x0) / gsd), r = Math.floor((y0 - n) / gsd);
        if (c < 0 || r < 0 || c >= W || r >= H) continue;
        srcRow[y * pw + x] = r;
        this.srcCol[y * pw + x] = c;
        counts[r + 1]!++;
      }
    }
    for (let r = 0; r < H; r++) counts[r + 1] = counts[r + 1]! + counts[r]!;
    this.rowStart = counts;
    this.order = new Int32Array(counts[H]!);
    const next = counts.slice();
    srcRow.forEach((r, k) => { if (r >= 0) this.order[next[r]!++] = k; });
  }

  /**
   * Samples rows [row0, row1) of the mosaic, or of its strip of columns from `col0` on;
   * `chans`: the source channels of red, green, blue and alpha.
   */
  take(rows: Uint8Array, row0: number, row1: number, stride: number, chans: number[], col0 = 0): void {
    const W = rows.length / stride / (row1 - row0);
    for (let r = row0; r < row1; r++) {
      for (let q = this.rowStart[r]!; q < this.rowStart[r + 1]!; q++) {
        const k = this.order[q]!;
        const col = this.srcCol[k]! - col0;
        if (col < 0 || col >= W) continue;
        const o = ((r - row0) * W + col) * stride;
        for (let c = 0; c < 4; c++) this.img[4 * k + c] = rows[o + chans[c]!]!;
      }
    }
  }

  write(path: string): Promise<unknown> {
    return sharp(this.img, { raw: { width: this.pw, height: this.ph, channels: 4 } }).png({ compressionLevel: 6 }).toFile(path);
  }
}
