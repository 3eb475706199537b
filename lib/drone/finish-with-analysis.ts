// The mosaic's last steps and its analysis at once: the index and the row pattern read the raw copy
// while GDAL writes the COG in its own process and the seams are checked, which leave a core idle.
import type { MultiPolygon, Polygon } from 'geojson';
import { allSettledOrThrow } from './all-settled';
import { measureRowPattern } from './classify';
import { analyseIndex } from './index';
import type { CompositedMosaic } from './ortho';
import { finishOrthomosaic } from './ortho';

/**
 * The finished mosaic, its index inside `field` and its row pattern. Throws the first failure once all
 * three have settled: a step that fails early must not leave the others writing into the work folder
 * as the task clears it.
 */
export async function finishWithAnalysis(composited: CompositedMosaic, field: Polygon | MultiPolygon) {
  const [mosaic, analysis, rowPattern] = await allSettledOrThrow([
    finishOrthomosaic(composited), analyseIndex(composited.mosaic, field), measureRowPattern(composited.mosaic),
  ]);
  return { mosaic, analysis, rowPattern };
}
