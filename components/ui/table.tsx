// A table of records as every page draws one: a shaded header row, rows ruled apart (each row's
// `border-t`), a total row set apart below, and sideways scrolling on a narrow screen.
import type { ReactNode } from 'react';

export function Table({ head, children, foot, testId, framed = false }: { head: ReactNode; children: ReactNode; foot?: ReactNode; testId?: string; framed?: boolean }) {
  return (
    // Focusable, so that a table wider than a phone can be scrolled from the keyboard too.
    <div className={framed ? 'overflow-x-auto rounded-lg border border-stone-200 bg-white' : 'overflow-x-auto'} tabIndex={0}>
      <table className="min-w-full text-sm" data-testid={testId}>
        <thead className="bg-stone-100">
          <tr>{head}</tr>
        </thead>
        <tbody>{children}</tbody>
        {foot && (
          <tfoot className="border-t-2 border-stone-300 font-semibold">
            <tr>{foot}</tr>
          </tfoot>
        )}
      </table>
    </div>
  );
}

/** A column's heading; a column of figures is set to the right, as its figures are. */
export function Th({ children, figures = false, className = '' }: { children?: ReactNode; figures?: boolean; className?: string }) {
  return <th className={`px-2 py-1 ${figures ? 'text-right' : 'text-left'} ${className}`}>{children}</th>;
}
