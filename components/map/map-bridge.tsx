'use client';
import type L from 'leaflet';
import { useEffect } from 'react';
import { useMap } from 'react-leaflet';

/** Hands the Leaflet map to the parent once it exists. */
export function MapBridge({ onReady }: { onReady: (map: L.Map) => void }) {
  const map = useMap();
  useEffect(() => onReady(map), [map, onReady]);
  return null;
}
