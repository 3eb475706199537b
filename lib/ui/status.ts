// The map colours of land statuses, owners and crops.
import { statusKey } from '../fields/land-status';

const STATUS_COLOR: Record<string, string> = { owned: '#15803d', leased: '#2563eb', subleased: '#d97706' };
export const NO_VALUE_COLOR = '#78716c';
/** A crop guessed but too close to call: lighter than no value, and no crop's colour (the palette's are saturated). */
export const UNSURE_CROP_COLOR = '#d6d3d1';
const PALETTE = ['#0f766e', '#9333ea', '#c2410c', '#0369a1', '#be123c', '#4d7c0f', '#a16207', '#4338ca', '#0e7490', '#86198f'];

function hashColor(text: string): string {
  let h = 0;
  for (const ch of text) h = (h * 31 + ch.codePointAt(0)!) >>> 0;
  return PALETTE[h % PALETTE.length]!;
}

export function statusColor(status: string | null | undefined): string {
  if (!status) return NO_VALUE_COLOR;
  const key = statusKey(status);
  return key ? STATUS_COLOR[key]! : hashColor(status);
}

export function ownerColor(owner: string | null | undefined): string {
  return owner ? hashColor(owner) : NO_VALUE_COLOR;
}

export function cropColor(crop: string | null | undefined): string {
  return crop ? hashColor(crop) : NO_VALUE_COLOR;
}
