'use client';
import { useSearchParams } from 'next/navigation';
import { useEffect, useMemo, useState } from 'react';
import { type SortKey, parseTableOrder, withTableOrder } from '@/lib/ui/table-order';
import type { FieldRow } from './field-row';

/** Rows on one page of the table: a company of 10,000 fields made a 9 MB page when all were drawn. */
export const PAGE_ROWS = 100;

const sortValue = (r: FieldRow, key: SortKey): string | number | null =>
  key === 'last_scan' ? (r.scan?.date ?? null) : key === 'index_mean' ? (r.scan?.mean ?? null) : r[key];

export type TableOrderState = ReturnType<typeof useTableOrder>;

/** The fields table's sort and page, kept in the address, and the rows they put on the page. */
export function useTableOrder(rows: FieldRow[]) {
  // Read on the client: Back restores the page as it was first rendered, and the address holds what
  // has been changed since.
  const searchParams = useSearchParams();
  const [order] = useState(() => parseTableOrder(Object.fromEntries(searchParams)));
  const [sort, setSort] = useState(order.sort);
  const [page, setPage] = useState(order.page);

  const sorted = useMemo(() => {
    const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
    return [...rows].sort((a, b) => {
      const x = sortValue(a, sort.key);
      const y = sortValue(b, sort.key);
      if (x === y) return 0;
      if (x === null) return 1;
      if (y === null) return -1;
      return (typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y))) * sort.dir;
    });
  }, [rows, sort]);
  const pages = Math.max(1, Math.ceil(sorted.length / PAGE_ROWS));
  const current = Math.min(page, pages - 1);
  const shown = sorted.slice(current * PAGE_ROWS, (current + 1) * PAGE_ROWS);
  // The order and page go into the address (replacing it: paging is not a visit), so that Back from
  // a field, a reload or a shared link shows the table as it was left.
  useEffect(() => {
    const query = withTableOrder(window.location.search, { sort, page: current });
    if (query !== window.location.search) window.history.replaceState(null, '', `${window.location.pathname}${query}`);
  }, [sort, current]);

  /** A header's click: sorted by its column, the other way round when it already was, from the first page. */
  function sortBy(key: SortKey) {
    setSort({ key, dir: sort.key === key ? (-sort.dir as 1 | -1) : 1 });
    setPage(0);
  }

  return { sort, sortBy, setPage, sorted, pages, current, shown };
}
