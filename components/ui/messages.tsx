'use client';
import { type ReactNode, useEffect, useRef } from 'react';

// The element that last had the focus, to tell when it has since left the page (see ErrorMessage).
let lastFocused: Element | null = null;
if (typeof document !== 'undefined') document.addEventListener('focusin', (e) => (lastFocused = e.target as Element));

export function ErrorMessage({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLParagraphElement>(null);
  // A keyboard or screen-reader user whose focused control vanished with the failure (a confirm
  // step closing) would be left at the page's start: the error takes the focus instead. Focus that
  // is still somewhere stays there; the alert is announced anyway.
  useEffect(() => {
    const active = document.activeElement;
    const lost = (!active || active === document.body) && lastFocused !== null && !lastFocused.isConnected;
    if (children && lost) ref.current?.focus();
  }, [children]);
  if (!children) return null;
  return (
    <p ref={ref} tabIndex={-1} role="alert" className="rounded border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-red-600">
      {children}
    </p>
  );
}

export function SuccessMessage({ children }: { children: ReactNode }) {
  if (!children) return null;
  return (
    <p role="status" className="rounded border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900">
      {children}
    </p>
  );
}
