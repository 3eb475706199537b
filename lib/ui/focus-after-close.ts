'use client';
// Keyboard users keep their place when an inline form closes: the Save or Cancel they pressed is gone
// with the form, and the focus had fallen to the page's start.
import { useEffect, useRef } from 'react';

/**
 * While `open` is false after `returnFocusTo(find)` was called, the element `find` gives once the
 * form has closed (an Edit button, found again in the new render) takes the focus, once.
 */
export function useFocusAfterClose(open: boolean): (find: () => HTMLElement | null | undefined) => void {
  const target = useRef<(() => HTMLElement | null | undefined) | null>(null);
  useEffect(() => {
    if (open || !target.current) return;
    target.current()?.focus();
    target.current = null;
  }, [open]);
  return (find) => {
    target.current = find;
  };
}
