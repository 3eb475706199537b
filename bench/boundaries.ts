// Field boundaries redrawn: merging register parcels, taking one back out, cutting a field along a
// line, and clipping a scan's zones to a boundary that changed since (what the field page and the
// ISOXML and PDF exports then do).
// Usage: npx tsx bench/boundaries.ts   (writes bench/results/boundaries.json)
import { existsSync } from 'node:fs';
import type { Polygon, Position } from 'geojson';
import { zonesWithin } from '@/lib/geo/within';
import type { ExportZone } from '@/lib/exports/types';
import { geometryAreaHa } from '@/lib/geo/area';
import { validateFieldGeometry } from '@/lib/geo/geometry';
import { splitGeometry } from '@/lib/geo/split';
import { separateGeometry } from '@/lib/geo/separate';
import { geometryUnion } from '@/lib/geo/union';
import { computeZones } from '@/lib/raster/zones';
import { sharedPath } from '@/tests/helpers/shared-data';
import { median, printTable, round, type Row, writeResults } from './lib';

const LON0 = 18.72, LAT0 = 48.2;
const M_LAT = 111_195, M_LON = M_LAT * Math.cos((LAT0 * Math.PI) / 180);
const ll = (x: number, y: number): Position => [LON0 + x / M_LON, LAT0 + y / M_LAT];

/** A wavy line from (x0, y0) to (x1, y1) in `n` steps; the same `seed` gives the same waves both ways. */
function edge(x0: number, y0: number, x1: number, y1: number, n: number, seed: number): Position[] {
  return Array.from({ length: n }, (_, i) => {
    const t = i / n;
    const wave = Math.sin(t * Math.PI) * 8 * Math.sin(seed + t * 9);
    const [dx, dy] = [x1 - x0, y1 - y0];
    const len = Math.hypot(dx, dy);
    return ll(x0 + dx * t - (dy / len) * wave, y0 + dy * t + (dx / len) * wave);
  });
}

/**
 * A `side` × `side` register of parcels of `size` metres whose shared edges are the same wavy lines
 * (as a topological register draws them), `n` vertices an edge.
 */
function register(side: number, size: number, n: number): Polygon[] {
  const seedH = (i: number, j: number) => i * 131 + j * 17;
  const seedV = (i: number, j: number) => i * 29 + j * 211 + 7;
  const parcels: Polygon[] = [];
  for (let i = 0; i < side; i++) {
    for (let j = 0; j < side; j++) {
      const [x0, y0, x1, y1] = [i * size, j * size, (i + 1) * size, (j + 1) * size];
      const south = edge(x0, y0, x1, y0, n, seedH(i, j));
      const east = edge(x1, y0, x1, y1, n, seedV(i + 1, j));
      const north = [...edge(x0, y1, x1, y1, n, seedH(i, j + 1)).slice(1), ll(x1, y1)].reverse();
      const west = [...edge(x0, y0, x0, y1, n, seedV(i, j)).slice(1), ll(x0, y1)].reverse();
      const ring = [...south, ...east, ...north, ...west];
      parcels.push({ type: 'Polygon', coordinates: [[...ring, ring[0]!]] });
    }
  }
  return parcels;
}

/** A wobbly disc of `n` vertices, about 500 ha. */
function bigField(n: number): Polygon {
  const ring = Array.from({ length: n }, (_, i) => {
    const a = (i / n) * 2 * Math.PI;
    const r = 1262 * (1 + 0.08 * Math.sin(7 * a) + 0.03 * Math.sin(31 * a));
    return ll(r * Math.cos(a), r * Math.sin(a));
  });
  return { type: 'Polygon', coordinates: [[...ring, ring[0]!]] };
}

function timed<T>(times: number, fn: () => T): { ms: number; value: T } {
  const runs: number[] = [];
  let value!: T;
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    value = fn();
    runs.push(performance.now() - t);
  }
  return { ms: round(median(runs)), value };
}

const vertices = (g: { type: string; coordinates: unknown }) => JSON.stringify(g.coordinates).split('],[').length;
const rows: Row[] = [];

for (const side of [2, 10]) {
  const parcels = register(side, 300, 50);
  const { ms, value } = timed(3, () => validateFieldGeometry(geometryUnion(parcels)));
  const rings = value.type === 'Polygon' ? value.coordinates.length : value.coordinates.flat().length;
  rows.push({ metric: `merge ${side * side} parcels of 200 vertices: time`, value: ms, unit: 'ms' });
  rows.push({ metric: `merge ${side * side} parcels: rings of the result`, value: rings, unit: '' });
  // A parcel in the middle of the register taken back out (unmerge).
  const middle = parcels[Math.floor(parcels.length / 2)]!;
  const out = timed(3, () => separateGeometry(value, middle));
  rows.push({ metric: `take a parcel back out of ${side * side}: time`, value: out.ms, unit: 'ms' });
  const change = geometryAreaHa(out.value.part!) + geometryAreaHa(out.value.rest!) - geometryAreaHa(value);
  rows.push({ metric: `take a parcel back out of ${side * side}: area change`, value: round((change / geometryAreaHa(value)) * 100, 6), unit: '%' });
}

// The largest field the service takes: 100,000 vertices with the closing one.
for (const n of [2000, 99_999]) {
  const field = bigField(n);
  const line: Position[] = [ll(-200, -1600), ll(100, 0), ll(-150, 1600)];
  const { ms, value } = timed(3, () => splitGeometry(field, line));
  const sum = value.reduce((s, p) => s + geometryAreaHa(p), 0);
  rows.push({ metric: `split a ${n.toLocaleString('en')}-vertex field: time`, value: ms, unit: 'ms' });
  rows.push({ metric: `split a ${n.toLocaleString('en')}-vertex field: area change`, value: round(((sum - geometryAreaHa(field)) / geometryAreaHa(field)) * 100, 6), unit: '%' });
}

// A real scan's zones (NAIP NDVI over 500 ha), clipped to the field cut back to its eastern half.
const NAIP = sharedPath('raster', 'naip', 'm_4709963_se_14_1_20190904.tif');
if (existsSync(NAIP)) {
  const field: Polygon = { type: 'Polygon', coordinates: [[[-99.17, 47.01], [-99.14, 47.01], [-99.14, 47.03], [-99.17, 47.03], [-99.17, 47.01]]] };
  const half: Polygon = { type: 'Polygon', coordinates: [[[-99.155, 47.01], [-99.14, 47.01], [-99.14, 47.03], [-99.155, 47.03], [-99.155, 47.01]]] };
  const { zones } = await computeZones(NAIP, field, { zones: 5, method: 'jenks' });
  const exportZones: ExportZone[] = zones.map((z) => ({ ...z, mean: z.mean, color: z.color, geometry: z.geometry }));
  rows.push({ metric: 'NAIP scan zones: vertices', value: exportZones.reduce((s, z) => s + vertices(z.geometry), 0), unit: '' });
  rows.push({ metric: 'zones clipped to a redrawn boundary: time', value: timed(3, () => zonesWithin(half, exportZones)).ms, unit: 'ms' });
} else {
  console.warn(`NAIP tile not found at ${NAIP}: the zone clipping row is left out`);
}

printTable('boundaries', rows);
writeResults('boundaries', rows, { node: process.version });
