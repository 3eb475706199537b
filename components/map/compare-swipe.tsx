'use client';
// Two scans side by side on one map: the left one's tiles shown left of the swipe line, the right
// one's right of it (as leaflet-side-by-side does it: each layer's container clipped to its side).
import type L from 'leaflet';
import type { LatLngBoundsExpression } from 'leaflet';
import { useEffect, useRef } from 'react';
import { TileLayer, useMap } from 'react-leaflet';
import { MAP_MAX_ZOOM } from './base-map';
import { type ScanLayer, scanTileUrl } from './scan-tiles';

interface CompareLayersProps {
  left: number;
  right: number;
  layer: ScanLayer;
  /** Where the line is, from 0 (the map's left edge) to 1 (its right edge). */
  position: number;
  bounds?: LatLngBoundsExpression;
}

export function CompareLayers({ left, right, layer, position, bounds }: CompareLayersProps) {
  const map = useMap();
  const leftRef = useRef<L.TileLayer>(null);
  const rightRef = useRef<L.TileLayer>(null);
  useEffect(() => {
    // In the layers' own coordinates, which shift as the map is dragged: clipped again at every move.
    const clip = () => {
      const size = map.getSize();
      const nw = map.containerPointToLayerPoint([0, 0]);
      const se = map.containerPointToLayerPoint(size);
      const x = Math.round(nw.x + size.x * position);
      const l = leftRef.current?.getContainer();
      const r = rightRef.current?.getContainer();
      if (l) l.style.clip = `rect(${nw.y}px, ${x}px, ${se.y}px, ${nw.x}px)`;
      if (r) r.style.clip = `rect(${nw.y}px, ${se.x}px, ${se.y}px, ${x}px)`;
    };
    clip();
    map.on('move zoomend resize', clip);
    return () => {
      map.off('move zoomend resize', clip);
    };
  }, [map, position, left, right, layer]);
  return (
    <>
      <TileLayer ref={leftRef} key={`l-${left}-${layer}`} url={scanTileUrl(left, layer)} maxZoom={MAP_MAX_ZOOM} bounds={bounds} zIndex={3} className="fm-compare-left" />
      <TileLayer ref={rightRef} key={`r-${right}-${layer}`} url={scanTileUrl(right, layer)} maxZoom={MAP_MAX_ZOOM} bounds={bounds} zIndex={3} className="fm-compare-right" />
    </>
  );
}

/** The swipe over the map: the line, the two scans' dates either side, and the slider that moves it. */
export function SwipeControl({ position, onPosition, leftLabel, rightLabel, label }: { position: number; onPosition: (p: number) => void; leftLabel: string; rightLabel: string; label: string }) {
  return (
    <>
      <div className="pointer-events-none absolute inset-y-0 z-[999] w-0.5 -translate-x-1/2 bg-white shadow-[0_0_3px_rgba(0,0,0,0.6)]" style={{ left: `${position * 100}%` }} data-testid="swipe-line" />
      <p className="absolute top-2 left-14 z-[1000] rounded bg-white/90 px-2 py-0.5 text-xs font-medium shadow" data-testid="compare-left-date">
        {leftLabel}
      </p>
      <p className="absolute top-12 right-2 z-[999] rounded bg-white/90 px-2 py-0.5 text-xs font-medium shadow lg:top-2 lg:right-80" data-testid="compare-right-date">
        {rightLabel}
      </p>
      <input
        type="range"
        min={0}
        max={100}
        step={1}
        value={Math.round(position * 100)}
        onChange={(e) => onPosition(Number(e.target.value) / 100)}
        aria-label={label}
        className="absolute right-4 bottom-8 left-4 z-[1000] w-[calc(100%-2rem)]"
      />
    </>
  );
}
