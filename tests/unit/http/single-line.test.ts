import { describe, expect, it } from 'vitest';
import { fieldRowMeta } from '@/lib/fields/import-rows';
import { isSingleLine, singleLine, toSingleLine } from '@/lib/http/single-line';

describe('names are one line', () => {
  it('the API refuses line breaks, tabs and other control characters, and takes any script', () => {
    for (const bad of ['North\nfield', 'A\r\nB', 'Agro\tCo', 'x\u0000', 'x\u007f', 'x\u0085y', 'a\u2028b']) expect(isSingleLine(bad), JSON.stringify(bad)).toBe(false);
    for (const good of ['Поле у реки', 'Pole č. 5 – sever', '田', 'A & B "C"']) expect(isSingleLine(good)).toBe(true);
    expect(singleLine().safeParse('  Pole 1  ').data).toBe('Pole 1');
    expect(singleLine().safeParse('Pole\n1').success).toBe(false);
  });

  it('a shapefile’s names, owners and statuses are made one line, runs of breaks one space', () => {
    const square = { type: 'Polygon' as const, coordinates: [[[17, 48], [17.01, 48], [17.01, 48.01], [17, 48.01], [17, 48]]] };
    const meta = fieldRowMeta({
      layer: 'lpis/parcels', index: 0, seq: 0, geometry: square, identifier: null, attributes: {}, parcel_number: null,
      name: 'Horný \r\n\r\nhon', owner: '\tAgro  Co\n', status: '\u0000',
    });
    // Spaces that were in the text stay as they were.
    expect(meta).toMatchObject({ name: 'Horný hon', owner: 'Agro  Co', status: null });
    expect(toSingleLine(' a \u2029 b ')).toBe('a b');
  });
});
