'use client';
import { useState } from 'react';
import type { ColorBy } from './field-colors';

export type LayerChoices = ReturnType<typeof useLayerChoices>;

/** What the layer panel chooses: the base map, the fields layer's switch and opacity, and how fields are coloured. */
export function useLayerChoices() {
  const [colorBy, setColorBy] = useState<ColorBy>('status');
  const [base, setBase] = useState(0);
  const [fieldsLayer, setFieldsLayer] = useState({ on: true, opacity: 1 });
  return { colorBy, setColorBy, base, setBase, fieldsLayer, setFieldsLayer };
}
