// How much of the field a scan covers, so that an agronomist sees when zones (and a prescription made
// from them) stand for only part of it. A drone survey records the share of the whole field its photos
// show (`details.field_coverage`, for the boundary it was made for); an uploaded raster records none,
// so its coverage is what its zones cover of the field (zones are made only where the raster has
// values: water, clouds and ground outside the image have none). The field page and the PDF report
// say the same.

export type Coverage = { kind: 'photos'; share: number } | { kind: 'zoned'; zonedHa: number; fieldHa: number; share: number };

/** Below this share the coverage is set as a warning: the rest of the field has no zones of its own. */
export const PARTIAL_COVERAGE = 0.95;

/** Ground no zone covers is listed from this much on (and 0.1 % of the field): less is the edge of the pixels. */
const MIN_UNZONED_HA = 0.01;

const unit = (x: number) => Math.max(0, Math.min(1, x));

/** The field's ground no zone covers, or 0 when that is only the edge of the pixels. */
function unzonedArea(fieldHa: number, zonedHa: number): number {
  const rest = fieldHa - zonedHa;
  return rest >= MIN_UNZONED_HA && rest >= 0.001 * fieldHa ? rest : 0;
}

/**
 * The field's ground as a scan's zones table lists it: the zones' area, the ground no zone covers (none
 * when there are no zones to list), and the area each row's share is of (the field's, or the zones'
 * and the rest when zones reach past a field drawn a little smaller).
 */
export function zonedGround(fieldHa: number, zoneAreas: number[]): { zonedHa: number; unzonedHa: number; shareBasis: number } {
  const zonedHa = zoneAreas.reduce((s, a) => s + a, 0);
  const unzonedHa = zoneAreas.length > 0 ? unzonedArea(fieldHa, zonedHa) : 0;
  return { zonedHa, unzonedHa, shareBasis: Math.max(fieldHa, zonedHa + unzonedHa) };
}

/**
 * A drone survey's share of the field its photos show, when it was made for the field's present
 * boundary (the share was measured against that shape); undefined otherwise.
 */
export function photoShare(details: unknown, madeForEarlierBoundary: boolean): number | undefined {
  const d = (details ?? {}) as { field_coverage?: unknown; boundary?: unknown };
  return typeof d.field_coverage === 'number' && Number.isFinite(d.field_coverage) && typeof d.boundary === 'string' && !madeForEarlierBoundary ? d.field_coverage : undefined;
}

/** The photos' share when there is one, else what the zones cover of the field; null for a field of no area. */
export function coverageOf(photos: number | undefined, zonedHa: number, fieldHa: number): Coverage | null {
  if (photos !== undefined) return { kind: 'photos', share: unit(photos) };
  if (!(fieldHa > 0)) return null;
  return { kind: 'zoned', zonedHa, fieldHa, share: unit(zonedHa / fieldHa) };
}

export function scanCoverage(scan: { source: string; details: unknown; madeForEarlierBoundary: boolean }, zonedHa: number, fieldHa: number): Coverage | null {
  return coverageOf(scan.source === 'drone' ? photoShare(scan.details, scan.madeForEarlierBoundary) : undefined, zonedHa, fieldHa);
}
