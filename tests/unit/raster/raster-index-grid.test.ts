// The strips the index grid is read in: whole blocks, so no block is decoded twice.
import { describe, expect, it } from 'vitest';
import { stripRows } from '@/lib/raster/index-grid';

describe('stripRows', () => {
  it('reads about 512 rows a strip, aligned to the blocks, from the window top to its bottom', () => {
    expect(stripRows(256, 100, 1100)).toEqual([[100, 512], [512, 1024], [1024, 1100]]);
    expect(stripRows(2, 0, 600)).toEqual([[0, 512], [512, 600]]);
  });

  it('takes one block a strip when blocks are taller than 512 rows', () => {
    expect(stripRows(1000, 0, 2500)).toEqual([[0, 1000], [1000, 2000], [2000, 2500]]);
  });

  it('gives none for an empty window', () => {
    expect(stripRows(16, 40, 40)).toEqual([]);
  });
});
