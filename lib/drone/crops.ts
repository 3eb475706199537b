// The crops the classifier knows (spec 2.6): shared by the pipeline, the pages and the upload form,
// so this module imports nothing.
export const CROPS = ['wheat', 'corn', 'sunflower', 'soy', 'rapeseed', 'barley', 'potato', 'grass'] as const;
export type Crop = (typeof CROPS)[number];
export const isCrop = (value: unknown): value is Crop => typeof value === 'string' && (CROPS as readonly string[]).includes(value);

/**
 * Crops the classifier does not tell apart but farms of the three languages' countries grow, which a
 * user may name for a scan (any other identifier is taken too, and shown as written). The pages give
 * them their names; a name in any language parses to the identifier (lib/fields/schemas.ts).
 */
export const OTHER_CROPS = ['sugar_beet', 'oats', 'rye', 'triticale', 'peas', 'alfalfa', 'buckwheat', 'flax', 'millet', 'mustard', 'poppy', 'fallow'] as const;
export const NAMED_CROPS = [...CROPS, ...OTHER_CROPS] as const;
export type NamedCrop = (typeof NAMED_CROPS)[number];
export const isNamedCrop = (value: unknown): value is NamedCrop => typeof value === 'string' && (NAMED_CROPS as readonly string[]).includes(value);
