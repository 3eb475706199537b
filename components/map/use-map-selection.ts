'use client';
import { useCallback, useState } from 'react';

export type MapSelection = ReturnType<typeof useMapSelection>;

/**
 * The fields selected on the map, the first shown in the panel; Shift-click adds more (to total or
 * merge them), and so does a plain click or tap once "Select several" is on (a tablet has no Shift key).
 */
export function useMapSelection(focusId: number | undefined, revealPanel: () => void) {
  const [selection, setSelection] = useState<number[]>(focusId ? [focusId] : []);
  const [adding, setAdding] = useState(false);
  const select = useCallback(
    (id: number | null) => {
      setSelection(id === null ? [] : [id]);
      setAdding(false);
      // A tap on a field must show something: on a phone, the sheet opens.
      if (id !== null) revealPanel();
    },
    [revealPanel],
  );

  /** A field clicked: selected alone, or added to the selection (Shift, "Select several") or taken out of it. */
  function pick(id: number, shiftKey: boolean) {
    if (!(adding || shiftKey)) return select(id);
    const next = selection.includes(id) ? selection.filter((s) => s !== id) : [...selection, id];
    // The last field taken out ends "Select several", as closing the selection does.
    if (next.length === 0) select(null);
    else setSelection(next);
  }

  return { selection, adding, setAdding, select, pick };
}
