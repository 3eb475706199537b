// The crops the classifier knows (spec 2.6): shared by the pipeline, the pages and the upload form,
// so this module imports nothing.
export const CROPS = ['wheat', 'corn', 'sunflower', 'soy', 'rapeseed', 'barley', 'potato', 'grass'] as const;
export type Crop = (typeof CROPS)[number];
export const isCrop = (value: unknown): value is Crop => typeof value === 'string' && (CROPS as readonly string[]).includes(value);
