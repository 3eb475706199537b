import type { LatestScan } from '@/lib/scans/scans';
import type { FieldProps } from '@/lib/ui/types';

/** A row of the fields table, as the fields page reads it. */
export interface FieldRow extends FieldProps {
  id: number;
  /** The field's latest scan, left out when it has none (10,000 rows of nulls weighed 700 kB). */
  scan?: LatestScan;
}
