// Names (of fields, owners, companies, people) are one line of text: a line break or another control
// character in one breaks the table row, the map's tooltip, the PDF's title, the KMZ's and the
// ISOXML's names, and a CSV made from them.
import { z } from 'zod';

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
/** A run of control characters with the spaces around it. */
const CONTROL_RUNS = new RegExp(` *(?:${CONTROL.source} *)+`, 'g');

/** Whether a text is one line: no line break, tab or other control character. */
export const isSingleLine = (text: string) => !CONTROL.test(text);

/** Zod's refinement of a text that must be one line (422 `single_line` otherwise). */
export const SINGLE_LINE = [isSingleLine, { params: { key: 'single_line' } }] as const;

/** A name sent to the API: trimmed, 1 to `max` characters, one line. */
export const singleLine = (max = 255) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine(...SINGLE_LINE);

/** A name read from a file (a shapefile's attribute table): line breaks and control characters become one space. */
export const toSingleLine = (text: string) => text.replace(CONTROL_RUNS, ' ').trim();
