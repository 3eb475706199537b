// The fields table's order and page, kept in its address (`?sort=area&dir=desc&page=2`) so that Back,
// a reload or a shared link shows the rows as they were left. Read by the page, written by the table.
export const SORT_KEYS = ['name', 'area', 'owner', 'status', 'parcel_number', 'last_scan', 'index_mean'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

export interface TableOrder {
  sort: { key: SortKey; dir: 1 | -1 };
  /** 0-based; the address counts from 1. */
  page: number;
}

export const DEFAULT_ORDER: TableOrder = { sort: { key: 'name', dir: 1 }, page: 0 };

const isSortKey = (v: unknown): v is SortKey => typeof v === 'string' && (SORT_KEYS as readonly string[]).includes(v);

/** The order an address asks for; anything it does not understand is the default. */
export function parseTableOrder(params: { sort?: string; dir?: string; page?: string }): TableOrder {
  const page = Number(params.page);
  return {
    sort: { key: isSortKey(params.sort) ? params.sort : DEFAULT_ORDER.sort.key, dir: params.dir === 'desc' ? -1 : 1 },
    page: Number.isInteger(page) && page >= 1 && page <= 100_000 ? page - 1 : 0,
  };
}

/** The address's query with the order written in (the default left out), other parameters kept. */
export function withTableOrder(search: string, order: TableOrder): string {
  const params = new URLSearchParams(search);
  const set = (name: string, value: string | null) => (value === null ? params.delete(name) : params.set(name, value));
  set('sort', order.sort.key === DEFAULT_ORDER.sort.key ? null : order.sort.key);
  set('dir', order.sort.dir === -1 ? 'desc' : null);
  set('page', order.page > 0 ? String(order.page + 1) : null);
  const query = params.toString();
  return query ? `?${query}` : '';
}
