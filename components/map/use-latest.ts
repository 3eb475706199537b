'use client';
import { type RefObject, useEffect, useRef } from 'react';

/**
 * A ref that follows `value` after each render: read by Leaflet's event handlers, which outlive
 * renders and would otherwise see the values of the render they were attached in.
 */
export function useLatest<T>(value: T): RefObject<T> {
  const ref = useRef(value);
  useEffect(() => {
    ref.current = value;
  });
  return ref;
}
