// The fields table's order in its address: read back as written, defaults left out, nonsense ignored.
import { describe, expect, it } from 'vitest';
import { DEFAULT_ORDER, parseTableOrder, withTableOrder } from '@/lib/ui/table-order';

describe('fields table order in the address', () => {
  it('writes the order and page beside the filters, and reads them back', () => {
    const query = withTableOrder('?q=north&status=Аренда', { sort: { key: 'area', dir: -1 }, page: 1 });
    expect(query).toBe('?q=north&status=%D0%90%D1%80%D0%B5%D0%BD%D0%B4%D0%B0&sort=area&dir=desc&page=2');
    expect(parseTableOrder(Object.fromEntries(new URLSearchParams(query)))).toEqual({ sort: { key: 'area', dir: -1 }, page: 1 });
  });

  it('leaves the default out, and takes anything it does not understand for the default', () => {
    expect(withTableOrder('?sort=area&page=3', DEFAULT_ORDER)).toBe('');
    expect(parseTableOrder({ sort: 'geometry', dir: 'sideways', page: '-2' })).toEqual(DEFAULT_ORDER);
    expect(parseTableOrder({ page: '1.5' })).toEqual(DEFAULT_ORDER);
  });
});
