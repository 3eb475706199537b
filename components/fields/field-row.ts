import type { LatestScan } from '@/lib/scans/scans';

/** A row of the fields table, as the fields page reads it. */
export interface FieldRow {
  id: number;
  name: string;
  area: number;
  owner: string | null;
  owner_id: number | null;
  status: string | null;
  parcel_number: string | null;
  /** The field's latest scan, left out when it has none (10,000 rows of nulls weighed 700 kB). */
  scan?: LatestScan;
}
