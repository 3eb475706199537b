// From the grid's patches to each class's geometry in WGS84: patches the field boundary crosses are
// clipped to the field, the others lie inside and are kept as they are (patches of one class never
// share an edge, so both kinds sit side by side in a MultiPolygon).
import { feature, featureCollection, intersect } from '@turf/turf';
import type { MultiPolygon, Polygon, Position } from 'geojson';
import { geometryAreaHa } from '@/lib/geo/area';
import { splitSelfTouchingRings } from '@/lib/geo/ring-split';
import type { GridToWgs84 } from './field-window';
import { CROSSED, type Components } from './grid';
import type { GridPolygon } from './polygonize';

/** Polygons in WGS84 per class (index = class; 0, unzoned, holds none that count). */
export type ClassPolygons = Position[][][][];

/** Each class's patches, as those inside the field and those its boundary crosses. */
export interface ClassPatches {
  inside: ClassPolygons;
  toClip: ClassPolygons;
}

/** A polygon clipped to the field, and its area. */
interface ClippedPart {
  poly: Position[][];
  ha: number;
}

/** The patches' polygons (grid coordinates, by label) in WGS84, by class and by whether the field's boundary crosses them. */
export function classPatches(
  polygons: Map<number, GridPolygon[]>,
  { labels, count }: Pick<Components, 'labels' | 'count'>,
  classes: Uint8Array,
  cover: Uint8Array,
  classCount: number,
  gridToWgs84: GridToWgs84,
): ClassPatches {
  const labelClass = new Uint8Array(count + 1);
  const crossed = new Uint8Array(count + 1);
  for (let i = 0; i < labels.length; i++) {
    labelClass[labels[i]!] = classes[i]!;
    if (cover[i]! & CROSSED) crossed[labels[i]!] = 1;
  }
  const inside = Array.from({ length: classCount + 1 }, () => [] as Position[][][]);
  const toClip = Array.from({ length: classCount + 1 }, () => [] as Position[][][]);
  for (const [label, polys] of polygons) {
    const target = (crossed[label] ? toClip : inside)[labelClass[label]!]!;
    for (const poly of polys) target.push(poly.map((ring) => ring.map(([c, r]) => gridToWgs84(c, r))));
  }
  return { inside, toClip };
}

/**
 * Each class's geometry (index = class, from 1; undefined where nothing is left), its crossed
 * patches clipped to the field. Clipping a patch to a concave or wiggling field boundary can cut it
 * into pieces; those smaller than half the minimum zone are slivers no machine acts on, and are
 * left unzoned, unless that would leave no zone at all (a field smaller than the minimum zone).
 */
export function classGeometries({ inside, toClip }: ClassPatches, field: Polygon | MultiPolygon, minZoneAreaHa: number): Array<Polygon | MultiPolygon | undefined> {
  const clippedParts = toClip.map((polys) => clipToField(polys, field));
  const anyKept = inside.some((polys) => polys.length > 0) || clippedParts.some((list) => list.some((p) => p.ha >= minZoneAreaHa / 2));
  const sliverHa = anyKept ? minZoneAreaHa / 2 : 0;
  const geometries: Array<Polygon | MultiPolygon | undefined> = [undefined];
  for (let cls = 1; cls < inside.length; cls++) {
    const kept = clippedParts[cls]!.filter((p) => p.ha >= sliverHa).map((p) => p.poly);
    geometries.push(joinParts(validParts([...inside[cls]!, ...kept])));
  }
  return geometries;
}

/** Polygons clipped to the field, as valid parts with their areas (none when there are none to clip). */
function clipToField(polys: Position[][][], field: Polygon | MultiPolygon): ClippedPart[] {
  if (!polys.length) return [];
  const clipped = intersect(featureCollection([feature<MultiPolygon>({ type: 'MultiPolygon', coordinates: polys }), feature(field)]))?.geometry;
  return validParts(clipped?.type === 'Polygon' ? [clipped.coordinates] : (clipped?.coordinates ?? [])).map((poly) => ({ poly, ha: geometryAreaHa({ type: 'Polygon', coordinates: poly }) }));
}

/** Parts as one geometry, with simple rings; undefined when there are none. */
function joinParts(parts: Position[][][]): Polygon | MultiPolygon | undefined {
  if (parts.length === 0) return undefined;
  const joined: Polygon | MultiPolygon = parts.length === 1 ? { type: 'Polygon', coordinates: parts[0]! } : { type: 'MultiPolygon', coordinates: parts };
  // Traced pixel edges pass twice through a corner where two holes, or a hole and the outside,
  // meet diagonally: such rings are split there, as GIS and tractor terminals want them simple.
  return splitSelfTouchingRings(joined) ?? joined;
}

/**
 * Polygons without what clipping leaves at the field's edge: a vertex repeated in a row, rings of
 * fewer than three distinct corners (a part of four identical points went into ISOXML as it was).
 */
function validParts(polygons: Position[][][]): Position[][][] {
  const ring = (r: Position[]) => {
    const out = r.filter((p, i) => i === 0 || p[0] !== r[i - 1]![0] || p[1] !== r[i - 1]![1]);
    return out.length >= 4 ? out : undefined;
  };
  return polygons.flatMap((poly) => {
    const [outer, ...holes] = poly.map(ring);
    return outer ? [[outer, ...holes.filter((h): h is Position[] => h !== undefined)]] : [];
  });
}
