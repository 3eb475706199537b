// Drawing rows of the mosaic: each output pixel from the photo nearest nadir there, with feathered
// seams and per-photo exposure gains, through each photo's camera (camera.ts) from the output pixel's
// spot on the relief (inverse mapping). Pure and synchronous, so that any thread can draw any rows
// (threads.ts) from photos decoded once in shared memory (composite.ts).
import type { Camera } from './camera';
import { rotation } from './camera';
import type { DecodedPart } from './photo-region';
import type { Placed } from './placed';
import type { ReliefGrid } from './relief';
import type { ReliefRow } from './relief';
import { heightInRow, reliefRow } from './relief';
import type { GridWindow } from './seams';

/** How much farther from its nadir than the nearest photo's a photo may be and still weigh in. */
export const FEATHER_CUTOFF_M = 2.5;
/**
 * Seam feathering: a photo's weight is (1 - x / FEATHER_CUTOFF_M)³ at x metres farther from its nadir
 * than the nearest photo is from its own. Across a seam between two photos the blend goes from 90 % to
 * 10 % over ±0.65 m, and reaches nothing smoothly at the cutoff: no step where a photo drops out.
 */
const featherWeight = (excessM: number) => {
  const t = 1 - excessM / FEATHER_CUTOFF_M;
  return t * t * t;
};
/** Photo edges fade over this many pixels so a neighbour can take over smoothly. */
const EDGE_FEATHER_PX = 60;

/** What drawing rows needs to know of the photos: their cameras, decoded sizes, gains, bounds and the relief. */
export interface RowSources {
  placed: Pick<Placed, 'width' | 'height'>[];
  cameras: Camera[];
  relief: ReliefGrid;
  /** Per-photo exposure gains, per channel. */
  gains: number[][];
  /** Bands (alpha follows in the output). */
  nb: number;
  /** Decoding scale of the photos (decodeScale). */
  scale: number;
  /** Each photo's [minE, maxE, minN, maxN] on the relief. */
  bbox: number[][];
}

const EMPTY = new Uint8Array(0);

/**
 * Columns of a row handled at once: whose photos are sorted out together (RowCompositor.soleOwner)
 * and across which each photo's projection steps linearly (RowCompositor.fitSegment). Segments start
 * at multiples of it in the whole mosaic, and also end at the relief's cell edges (cellEnds); strips
 * of columns hold whole segments (compositeStrips), so that a strip draws the bytes the whole mosaic would.
 */
export const SEGMENT_COLUMNS = 32;
/**
 * Columns drawn a row at a time before the next row (drawRows): a row drawn whole walks the photos'
 * pixels across the mosaic's width, so the next row found their lines gone from the cache.
 */
const BLOCK_COLUMNS = 512;
/**
 * A projection steps linearly across a segment only when the segment spans at most one relief cell
 * and the exact projection at its middle is this close (decoded pixels) to the straight line between
 * its ends: the relief then bends the line at most once, so its worst miss is no more than twice the
 * middle's.
 */
const STEP_ERROR_PX = 0.01;
/**
 * A sample in [0, 255) rounded to the nearest byte, halves up: Math.round's value for every sum the
 * drawing makes (they differ only just under 0.5), at twice its speed in V8.
 */
const toByte = (val: number) => (val + 0.5) | 0;

/** Distances (m) closer than this to the feather's cutoff count as within it: rounding cannot flip a pixel. */
const CUTOFF_MARGIN_M = 1e-6;

/**
 * For each of W columns (ground points e0 + (col0 + c)·gsd), the last column in the same relief cell.
 * Heights bend at cells' edges (heightInRow), so a segment ending there can step linearly; the
 * cells are those heightInRow interpolates in, from the same numbers.
 */
function cellEnds(g: ReliefGrid, e0: number, gsd: number, col0: number, W: number): Int32Array {
  const lastCol = g.cols - 1, cell = new Int32Array(W), end = new Int32Array(W);
  for (let c = 0; c < W; c++) {
    const x = Math.min(lastCol, Math.max(0, (e0 + (col0 + c) * gsd - g.e0) / g.cellM));
    cell[c] = Math.min(Math.max(0, lastCol - 1), Math.floor(x));
  }
  for (let c = W - 1; c >= 0; c--) end[c] = c === W - 1 || cell[c + 1] !== cell[c] ? c : end[c + 1]!;
  return end;
}

/**
 * One row of a window at a time: each candidate photo's camera-frame coordinates of the row's ground
 * points at the mosaic's column 0 on the camera's own height and their steps per column; then, a
 * segment of columns at a time, each photo's projection fitted to a straight line, segments no photo
 * sees skipped, and each pixel drawn from the photo nearest nadir there, blended with those within
 * the feather's cutoff of it.
 */
class RowCompositor {
  private readonly rot: Float64Array[];
  private readonly distorted: Uint8Array;
  /** Decoded frame of each photo: what it sees. */
  private readonly widths: Int32Array;
  private readonly heights: Int32Array;
  /** The part of each photo at hand (PixelRegion): what can be read. */
  private readonly ru0: Int32Array; private readonly rv0: Int32Array; private readonly rw: Int32Array; private readonly rh: Int32Array;
  private readonly px0: Float64Array; private readonly py0: Float64Array; private readonly pz0: Float64Array;
  private readonly pxs: Float64Array; private readonly pys: Float64Array; private readonly pzs: Float64Array;
  /** Each photo's projection across the current segment: whether it steps linearly, u and v at its start and their steps per column. */
  private readonly linear: Uint8Array;
  private readonly su: Float64Array; private readonly sdu: Float64Array; private readonly sv: Float64Array; private readonly sdv: Float64Array;
  /** The current segment: its first and last column. */
  private segA = 0; private segB = 0;
  /** The last exact projection (project). */
  private pu = 0; private pv = 0;
  /** The last projection of each photo (u, v in its part at hand, edge fade), its distance from nadir and its square. */
  private readonly cu: Float64Array; private readonly cvv: Float64Array; private readonly ce: Float64Array;
  private readonly cd: Float64Array; private readonly cd2: Float64Array;
  private readonly cand: Int32Array;
  private readonly acc: Float64Array;
  /** Each photo's gain per band (a single gain repeated for every band). */
  private readonly gain: Float64Array[];
  /** The current row's heights, worked out as projections ask for them: columns stepped linearly need none. */
  private readonly heightsOfRow: Float64Array;
  /** For each column, the row (+ 1) whose height heightsOfRow holds. */
  private readonly heightOfRowKnown: Int32Array;
  private reliefOfRow: ReliefRow = { r0: 0, r1: 0, fy: 0 };
  private row = 0;
  private readonly cutoff = FEATHER_CUTOFF_M;
  /** Decoded pixels of the photos of the band being drawn (EMPTY for the others). */
  private readonly imgs: Uint8Array[];
  /** Photos whose bounds cross the row; of them, those whose bounds reach the current segment (startSegment), then those that may see it (keepSeeing). */
  private cands: number[] = [];
  private readonly seeing: Int32Array;
  private nSeeing = 0;
  private north = 0;
  /** Easting of the whole mosaic's first column's centres, and this window's first column in it. */
  private readonly e0: number;
  private readonly col0: number;
  /** For each column, the last column of the relief cell it lies in: segments end there too. */
  private readonly cellEnd: Int32Array;

  constructor(private readonly src: RowSources, private readonly grid: GridWindow) {
    const n = src.placed.length;
    this.linear = new Uint8Array(n);
    this.su = new Float64Array(n); this.sdu = new Float64Array(n); this.sv = new Float64Array(n); this.sdv = new Float64Array(n);
    this.rot = src.cameras.map((c) => rotation(c.yaw, c.pitch, c.roll));
    this.distorted = Uint8Array.from(src.cameras, (c) => (c.k1 || c.k2 ? 1 : 0));
    this.widths = Int32Array.from(src.placed, (p) => Math.round(p.width * src.scale));
    this.heights = Int32Array.from(src.placed, (p) => Math.round(p.height * src.scale));
    this.px0 = new Float64Array(n); this.py0 = new Float64Array(n); this.pz0 = new Float64Array(n);
    this.pxs = new Float64Array(n); this.pys = new Float64Array(n); this.pzs = new Float64Array(n);
    this.cu = new Float64Array(n); this.cvv = new Float64Array(n); this.ce = new Float64Array(n);
    this.cd = new Float64Array(n); this.cd2 = new Float64Array(n);
    this.ru0 = new Int32Array(n); this.rv0 = new Int32Array(n); this.rw = new Int32Array(n); this.rh = new Int32Array(n);
    this.cand = new Int32Array(n);
    this.seeing = new Int32Array(n);
    this.acc = new Float64Array(src.nb);
    this.gain = src.gains.map((g) => Float64Array.from({ length: src.nb }, (_, b) => g[b] ?? g[0]!));
    this.heightsOfRow = new Float64Array(grid.W);
    this.heightOfRowKnown = new Int32Array(grid.W);
    this.imgs = new Array<Uint8Array>(n).fill(EMPTY);
    // Ground positions from the whole mosaic's columns: a strip's pixels are then computed from the
    // very numbers the whole mosaic's are, to the last bit.
    this.e0 = (grid.inMosaic?.x0 ?? grid.x0) + 0.5 * grid.gsd;
    this.col0 = grid.inMosaic?.col0 ?? 0;
    this.cellEnd = cellEnds(src.relief, this.e0, grid.gsd, this.col0, grid.W);
  }

  /** Takes photo i's decoded part for the rows drawn next. */
  hold(i: number, { px, region }: DecodedPart): void {
    this.imgs[i] = px;
    this.ru0[i] = region.u0; this.rv0[i] = region.v0; this.rw[i] = region.w; this.rh[i] = region.h;
  }

  /**
   * Draws columns [colA, colB) of row `row` from the photos of `inBlock` whose bounds cross it into
   * `out` from offset `rowOut` (the row's start). colA and colB lie where segments start (SEGMENT_COLUMNS) or at the row's end.
   */
  drawRow(row: number, inBlock: number[], out: Uint8Array, rowOut: number, colA: number, colB: number): void {
    const { gsd } = this.grid, { bbox, cameras, relief } = this.src, stride = this.src.nb + 1;
    const n = (this.north = this.grid.y0 - (row + 0.5) * gsd);
    this.cands = inBlock.filter((i) => bbox[i]![3]! >= n && bbox[i]![2]! <= n);
    this.reliefOfRow = reliefRow(relief, n);
    this.row = row + 1;
    for (const i of this.cands) {
      const c = cameras[i]!, R = this.rot[i]!;
      const dx = this.e0 - c.E, dy = n - c.N;
      this.px0[i] = R[0]! * dx + R[1]! * dy; this.py0[i] = R[3]! * dx + R[4]! * dy; this.pz0[i] = R[6]! * dx + R[7]! * dy;
      this.pxs[i] = R[0]! * gsd; this.pys[i] = R[3]! * gsd; this.pzs[i] = R[6]! * gsd;
    }
    for (let a = colA, b = 0; a < colB; a = b + 1) {
      b = Math.min(colB, a + SEGMENT_COLUMNS - ((a + this.col0) % SEGMENT_COLUMNS), this.cellEnd[a]! + 1) - 1;
      this.startSegment(a, b);
      // Where one photo owns the segment, only its projection is fitted: soleOwner finds the same owner
      // among the photos that see the segment (keepSeeing), since they are some of these.
      let owner = this.soleOwner(a, b);
      if (owner >= 0) {
        this.fitSegment(owner);
        if (this.seesWholeSegment(owner)) {
          this.sampleSegment(owner, out, rowOut);
          continue;
        }
      }
      this.keepSeeing(owner);
      // Beyond every photo's frame (the no-data corners of a mosaic's bounding box): nothing to draw.
      if (!this.nSeeing) continue;
      owner = this.soleOwner(a, b);
      if (owner >= 0 && this.seesWholeSegment(owner)) {
        this.sampleSegment(owner, out, rowOut);
        continue;
      }
      for (let col = a; col <= b; col++) {
        const o = rowOut + col * stride;
        if (owner >= 0 && this.inFrame(owner, col)) this.sampleOne(owner, out, o);
        else this.drawPixel(col, out, o);
      }
    }
  }

  /**
   * Starts columns [a, b] with the photos of the row whose footprint's bounds reach them (traced a
   * point at a time, so given a relief cell's margin): the others see none of it.
   */
  private startSegment(a: number, b: number): void {
    this.segA = a; this.segB = b;
    this.nSeeing = 0;
    const { bbox, relief } = this.src, gsd = this.grid.gsd;
    const west = this.e0 + (this.col0 + a) * gsd - relief.cellM, east = this.e0 + (this.col0 + b) * gsd + relief.cellM;
    for (const i of this.cands) if (bbox[i]![1]! >= west && bbox[i]![0]! <= east) this.seeing[this.nSeeing++] = i;
  }

  /** Fits each photo of the segment (startSegment) but `fitted` (already fitted, or -1) and keeps those whose frame the segment may cross. */
  private keepSeeing(fitted: number): void {
    const a = this.segA, b = this.segB, near = this.nSeeing;
    this.nSeeing = 0;
    for (let k = 0; k < near; k++) {
      const i = this.seeing[k]!;
      if (i !== fitted) this.fitSegment(i);
      if (this.linear[i]) {
        // A straight line in the photo, so out of the frame at both ends on one side is out all along.
        const ua = this.su[i]!, va = this.sv[i]!, ub = ua + this.sdu[i]! * (b - a), vb = va + this.sdv[i]! * (b - a);
        const w = this.widths[i]! - 1, h = this.heights[i]! - 1;
        if ((ua < 0 && ub < 0) || (va < 0 && vb < 0) || (ua >= w && ub >= w) || (va >= h && vb >= h)) continue;
      }
      this.seeing[this.nSeeing++] = i;
    }
  }

  /**
   * The photo nearest nadir all along columns [a, b] with every other photo beyond the feather's cutoff
   * of it, or -1. Checked at both ends only: the ground nearer one nadir than another by more than a
   * distance is convex (inside a hyperbola's branch), so what holds at both ends holds between.
   */
  private soleOwner(a: number, b: number): number {
    const owner = this.nearestAt(a);
    return owner >= 0 && this.othersBeyondCutoff(owner, a) && this.othersBeyondCutoff(owner, b) ? owner : -1;
  }

  /** The photo whose nadir is nearest column `col`'s ground point, each photo's squared distance left in cd2. */
  private nearestAt(col: number): number {
    const { cameras } = this.src, e = this.e0 + (this.col0 + col) * this.grid.gsd;
    let nearest = -1, nearestD2 = Infinity;
    for (let k = 0; k < this.nSeeing; k++) {
      const i = this.seeing[k]!;
      const c = cameras[i]!, ex = e - c.E, ey = this.north - c.N;
      const d2 = ex * ex + ey * ey;
      this.cd2[i] = d2;
      if (d2 < nearestD2) { nearestD2 = d2; nearest = i; }
    }
    return nearest;
  }

  private othersBeyondCutoff(owner: number, col: number): boolean {
    if (this.nearestAt(col) !== owner) return false;
    const reach = Math.sqrt(this.cd2[owner]!) + this.cutoff + CUTOFF_MARGIN_M;
    for (let k = 0; k < this.nSeeing; k++) {
      const i = this.seeing[k]!;
      if (i !== owner && this.cd2[i]! <= reach * reach) return false;
    }
    return true;
  }

  /**
   * Whether photo i steps linearly across the current segment with both ends inside its frame and the
   * part at hand: rounding is monotonic, so every column between is inside too (inFrame holds for each).
   */
  private seesWholeSegment(i: number): boolean {
    if (!this.linear[i]) return false;
    const n = this.segB - this.segA, w = this.widths[i]! - 1, h = this.heights[i]! - 1;
    const ua = this.su[i]!, va = this.sv[i]!, ub = ua + this.sdu[i]! * n, vb = va + this.sdv[i]! * n;
    if (Math.min(ua, ub) < 0 || Math.min(va, vb) < 0 || Math.max(ua, ub) >= w || Math.max(va, vb) >= h) return false;
    const ru0 = this.ru0[i]!, rv0 = this.rv0[i]!, rw = this.rw[i]! - 1, rh = this.rh[i]! - 1;
    return Math.min(ua, ub) - ru0 >= 0 && Math.min(va, vb) - rv0 >= 0 && Math.max(ua, ub) - ru0 < rw && Math.max(va, vb) - rv0 < rh;
  }

  /** The current segment drawn from photo i alone (seesWholeSegment): sampleOne at each column, without the checks. */
  private sampleSegment(i: number, out: Uint8Array, rowOut: number): void {
    const stride = this.src.nb + 1, su = this.su[i]!, sdu = this.sdu[i]!, sv = this.sv[i]!, sdv = this.sdv[i]!, ru0 = this.ru0[i]!, rv0 = this.rv0[i]!;
    for (let col = this.segA, t = 0; col <= this.segB; col++, t++) this.sampleAt(i, su + sdu * t - ru0, sv + sdv * t - rv0, out, rowOut + col * stride);
  }

  /** Column `col`'s ground point in photo i (fitted to the segment); true (and cu, cvv, ce set) when it falls inside the frame. */
  private inFrame(i: number, col: number): boolean {
    let u: number, v: number;
    if (this.linear[i]) {
      const t = col - this.segA;
      u = this.su[i]! + this.sdu[i]! * t; v = this.sv[i]! + this.sdv[i]! * t;
    } else {
      if (!this.project(i, col)) return false;
      u = this.pu; v = this.pv;
    }
    const w = this.widths[i]! - 1, h = this.heights[i]! - 1;
    if (u < 0 || v < 0 || u >= w || v >= h) return false;
    // Outside the part at hand: never for a part from photoRegion, which holds all the window can see.
    const ur = u - this.ru0[i]!, vr = v - this.rv0[i]!;
    if (ur < 0 || vr < 0 || ur >= this.rw[i]! - 1 || vr >= this.rh[i]! - 1) return false;
    this.cu[i] = ur; this.cvv[i] = vr;
    const edge = Math.min(u, v, w - u, h - v) + 1, fade = EDGE_FEATHER_PX * this.src.scale;
    this.ce[i] = edge < fade ? edge / fade : 1;
    return true;
  }

  /** Whether photo i's projection steps linearly across the current segment (its ends and middle in front of the camera, the middle on the line). */
  private fitSegment(i: number): void {
    const a = this.segA, b = this.segB, m = (a + b) >> 1;
    this.linear[i] = 0;
    // Wider than a relief cell (grids coarser than about 6 cm on 2 m cells), two bends could hide from the middle.
    if (b - a < 2 || (b - a) * this.grid.gsd > this.src.relief.cellM || !this.project(i, b)) return;
    const ub = this.pu, vb = this.pv;
    if (!this.project(i, m)) return;
    const um = this.pu, vm = this.pv;
    if (!this.project(i, a)) return;
    const du = (ub - this.pu) / (b - a), dv = (vb - this.pv) / (b - a);
    if (Math.abs(this.pu + du * (m - a) - um) > STEP_ERROR_PX || Math.abs(this.pv + dv * (m - a) - vm) > STEP_ERROR_PX) return;
    this.su[i] = this.pu; this.sv[i] = this.pv; this.sdu[i] = du; this.sdv[i] = dv;
    this.linear[i] = 1;
  }

  /** Column `col`'s ground point in photo i's decoded pixels (pu, pv); false when it lies behind the camera. */
  private project(i: number, col: number): boolean {
    const c = this.src.cameras[i]!, R = this.rot[i]!, scale = this.src.scale;
    const dz = this.heightAt(col) - c.Z, g = this.col0 + col;
    const zc = this.pz0[i]! + this.pzs[i]! * g + R[8]! * dz;
    if (!(zc > 0)) return false;
    let xn = (this.px0[i]! + this.pxs[i]! * g + R[2]! * dz) / zc, yn = (this.py0[i]! + this.pys[i]! * g + R[5]! * dz) / zc;
    if (this.distorted[i]) {
      const r2 = xn * xn + yn * yn, dist = 1 + r2 * (c.k1 + c.k2 * r2);
      xn *= dist; yn *= dist;
    }
    // Decoded-pixel coordinates (pixel centres scale about the corner).
    this.pu = (c.cx + c.f * xn + 0.5) * scale - 0.5; this.pv = (c.cy + c.f * yn + 0.5) * scale - 0.5;
    return true;
  }

  /** Column `col`'s height on the relief, in the current row. */
  private heightAt(col: number): number {
    if (this.heightOfRowKnown[col] !== this.row) {
      this.heightsOfRow[col] = heightInRow(this.src.relief, this.reliefOfRow, this.e0 + (this.col0 + col) * this.grid.gsd);
      this.heightOfRowKnown[col] = this.row;
    }
    return this.heightsOfRow[col]!;
  }

  /**
   * One pixel with every photo weighed: the photo nearest nadir first; when it sees the spot, only
   * photos within the feather's cutoff of it can weigh in.
   */
  private drawPixel(col: number, out: Uint8Array, o: number): void {
    const nearest = this.nearestAt(col);
    const nearestSees = nearest >= 0 && this.inFrame(nearest, col);
    const reach = nearestSees ? (Math.sqrt(this.cd2[nearest]!) + this.cutoff) ** 2 : Infinity;
    let dmin = Infinity, nc = 0;
    for (let k = 0; k < this.nSeeing; k++) {
      const i = this.seeing[k]!;
      if (i === nearest ? !nearestSees : this.cd2[i]! > reach || !this.inFrame(i, col)) continue;
      const d = Math.sqrt(this.cd2[i]!);
      this.cd[i] = d;
      this.cand[nc++] = i;
      if (d < dmin) dmin = d;
    }
    if (nc === 1) this.sampleOne(this.cand[0]!, out, o);
    else if (nc > 1) this.blend(nc, dmin, out, o);
  }

  /** Inside a single photo (most of the mosaic): its bilinear sample at the last projection, no blending. */
  private sampleOne(i: number, out: Uint8Array, o: number): void {
    this.sampleAt(i, this.cu[i]!, this.cvv[i]!, out, o);
  }

  /** Photo i's bilinear sample at (u, v) of its part at hand, with its gains, into `out` at `o`. */
  private sampleAt(i: number, u: number, v: number, out: Uint8Array, o: number): void {
    const nb = this.src.nb, img = this.imgs[i]!, g = this.gain[i]!;
    const ui = u | 0, vi = v | 0;
    const fu = u - ui, fv = v - vi;
    const w00 = (1 - fu) * (1 - fv), w10 = fu * (1 - fv), w01 = (1 - fu) * fv, w11 = fu * fv;
    const o00 = (vi * this.rw[i]! + ui) * nb, o01 = o00 + this.rw[i]! * nb;
    for (let b = 0; b < nb; b++) {
      const val = (img[o00 + b]! * w00 + img[o00 + nb + b]! * w10 + img[o01 + b]! * w01 + img[o01 + nb + b]! * w11) * g[b]!;
      out[o + b] = val >= 255 ? 255 : toByte(val);
    }
    out[o + nb] = 255;
  }

  /** The `nc` candidates' samples feathered by their extra distance from nadir over `dmin` and faded at their edges. */
  private blend(nc: number, dmin: number, out: Uint8Array, o: number): void {
    const nb = this.src.nb, acc = this.acc;
    for (let b = 0; b < nb; b++) acc[b] = 0;
    let wsum = 0;
    for (let k = 0; k < nc; k++) {
      const i = this.cand[k]!;
      const excess = this.cd[i]! - dmin;
      if (excess > this.cutoff) continue;
      const wt = featherWeight(excess) * this.ce[i]!;
      const img = this.imgs[i]!, w = this.rw[i]!, g = this.gain[i]!;
      const u = this.cu[i]!, v = this.cvv[i]!;
      const ui = u | 0, vi = v | 0;
      const fu = u - ui, fv = v - vi;
      const w00 = (1 - fu) * (1 - fv) * wt, w10 = fu * (1 - fv) * wt, w01 = (1 - fu) * fv * wt, w11 = fu * fv * wt;
      const o00 = (vi * w + ui) * nb, o01 = o00 + w * nb;
      for (let b = 0; b < nb; b++) {
        acc[b] = acc[b]! + (img[o00 + b]! * w00 + img[o00 + nb + b]! * w10 + img[o01 + b]! * w01 + img[o01 + nb + b]! * w11) * g[b]!;
      }
      wsum += wt;
    }
    for (let b = 0; b < nb; b++) {
      const val = acc[b]! / wsum;
      out[o + b] = val >= 255 ? 255 : toByte(val);
    }
    out[o + nb] = 255;
  }
}

/**
 * Rows [row0, row1) of `grid` drawn into `out` (pixel-interleaved bands + alpha) from row `outRow0` of
 * it, from the photos `inBlock` (their decoded parts `parts`, in the same order), BLOCK_COLUMNS of
 * every row at a time. Blocks end where segments would (multiples of SEGMENT_COLUMNS in the whole
 * mosaic), so the bytes are those of rows drawn whole.
 */
export function drawRows(src: RowSources, grid: GridWindow, inBlock: number[], parts: DecodedPart[], out: Uint8Array, row0: number, row1: number, outRow0: number): void {
  const rows = new RowCompositor(src, grid);
  inBlock.forEach((i, k) => rows.hold(i, parts[k]!));
  const rowBytes = grid.W * (src.nb + 1), col0 = grid.inMosaic?.col0 ?? 0;
  for (let a = 0; a < grid.W; ) {
    const b = Math.min(grid.W, a + BLOCK_COLUMNS - ((a + col0) % SEGMENT_COLUMNS));
    for (let row = row0; row < row1; row++) rows.drawRow(row, inBlock, out, (row - row0 + outRow0) * rowBytes, a, b);
    a = b;
  }
}
