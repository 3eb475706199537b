'use client';
import { useEffect, useRef } from 'react';

/**
 * Escape steps back out of what the map is doing (`onEscape`). Not while typing: Escape in the new
 * field's form must not throw the drawn boundary away.
 */
export function useEscapeKey(onEscape: () => void) {
  const handler = useRef(onEscape);
  useEffect(() => {
    handler.current = onEscape;
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || (e.target as HTMLElement | null)?.closest('input, select, textarea')) return;
      handler.current();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}
