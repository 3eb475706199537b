'use client';
import { useState } from 'react';

export type RowSelection = ReturnType<typeof useRowSelection>;

/** The fields table's selected rows (for a bulk edit) and whether they are being merged. */
export function useRowSelection() {
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [merging, setMerging] = useState(false);
  const toggle = (ids: number[], on: boolean) =>
    setSelected((was) => {
      const next = new Set(was);
      for (const id of ids) if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  return { selected, setSelected, toggle, merging, setMerging };
}
