// Finding a field by what a person types (the map's search and the upload forms' field).
import { describe, expect, it } from 'vitest';
import { fieldMatcher, fold } from '@/lib/ui/search';

const fields = [
  { id: 1, name: 'Pláž pri rieke', parcel: '61:02:1' },
  { id: 2, name: 'Поле у дороги', parcel: null },
  { id: 3, name: 'North', parcel: '61:03:7' },
];
const match = fieldMatcher(fields, (f) => `${f.name} ${f.parcel ?? ''}`);
const ids = (q: string) => match(q).map((f) => f.id);

describe('fieldMatcher', () => {
  it('finds by any part of the name or parcel number, in any case and without accents', () => {
    expect(ids('plaz')).toEqual([1]);
    expect(ids('PLÁŽ')).toEqual([1]);
    expect(ids('поле')).toEqual([2]);
    expect(ids('61:0')).toEqual([1, 3]);
    expect(ids(' north ')).toEqual([3]);
  });

  it('finds nothing for an empty query, and nothing that is not there', () => {
    expect(ids('')).toEqual([]);
    expect(ids('   ')).toEqual([]);
    expect(ids('zzz')).toEqual([]);
  });

  it('folds Cyrillic й and ё as their base letters, as people often type them', () => {
    expect(fold('Ёлкино Майское')).toBe('елкино маиское');
  });
});
