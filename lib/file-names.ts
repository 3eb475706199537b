// File names made from what users typed (a field's name, a register code), for downloads and the
// names inside exported archives.
import slugify from 'slugify';

/**
 * A name in ASCII letters, digits, hyphens and underscores, for a file: transliterated (`Поле №1` ->
 * `Pole_1`), with a register code's separators as hyphens (`1401/31` -> `1401-31`; dropped, it was
 * `140131`, which `14013/1` is too). Empty when nothing is left.
 */
export function asciiStem(name: string): string {
  // Characters a file name cannot hold, which slugify would spell out (`<` -> `less`, `|` -> `or`), separate words here.
  const separated = name.replace(/(?<=\S)[/\\:.](?=\S)/g, '-').replace(/[<>|*?"]+/g, ' ');
  return slugify(separated, { replacement: '_', remove: /[^\w\s-]/g, trim: true });
}

/**
 * The plain-ASCII name for clients that do not read `filename*`: transliterated as KMZ names are
 * (`Поле у реки.pdf` -> `Pole_u_reki.pdf`), not a row of underscores.
 */
export function asciiFileName(name: string): string {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  const ascii = asciiStem(stem);
  return `${ascii || 'download'}${ext.replace(/[^\w.]/g, '')}`;
}

/**
 * A field's name made a file name every system can hold, in any script (`Поле 1401/31` ->
 * `Поле 1401-31`): no path separators, none of Windows's reserved characters, no control characters,
 * nothing hidden or climbing (`../../x` -> `x`), at most 150 characters before the extension.
 */
export function safeFileName(name: string): string {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  const clean = stem
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '-')
    .replace(/^[\s.-]+|[\s.]+$/g, '');
  return `${[...clean].slice(0, 150).join('').trimEnd() || 'download'}${ext.replace(/[^\w.]/g, '')}`;
}
