import { Table, Th } from '@/components/ui/table';
import type { AreaRow } from './area-bars';

/** The labels a breakdown's table writes: its first column's heading, the area and share headings, the total row's. */
export interface AreaTableLabels {
  head: string;
  area: string;
  share: string;
  total: string;
}

/** A breakdown as a table: each row's area and share of the company's, and the total. */
export function AreaTable({ rows, labels, total, share }: { rows: AreaRow[]; labels: AreaTableLabels; total: { area: string; share: string }; share: (value: number) => string }) {
  return (
    <Table
      head={
        <>
          <Th>{labels.head}</Th>
          <Th figures>{labels.area}</Th>
          <Th figures>{labels.share}</Th>
        </>
      }
      foot={
        <>
          <td className="px-2 py-1">{labels.total}</td>
          <td className="px-2 py-1 text-right tabular-nums">{total.area}</td>
          <td className="px-2 py-1 text-right tabular-nums">{total.share}</td>
        </>
      }
    >
      {rows.map((r) => (
        <tr key={r.label} className="border-t border-stone-200">
          <td className="px-2 py-1">{r.label}</td>
          <td className="px-2 py-1 text-right tabular-nums">{r.area}</td>
          <td className="px-2 py-1 text-right tabular-nums">{share(r.value)}</td>
        </tr>
      ))}
    </Table>
  );
}
