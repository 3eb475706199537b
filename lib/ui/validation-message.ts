// Which message a form control's failed constraint (`required`, `type="email"`, `minLength`, `pattern`,
// `min`/`max`, `step`...) gets in the interface's language: the browser's own messages are in the
// browser's language, not the one the user chose. The catalogue's namespace is `validation_ui`.

/** The keys under `validation_ui` in messages/*.json, one for each message this module can choose. */
export const VALIDATION_MESSAGE_KEYS = [
  'value_missing',
  'value_missing_choice',
  'value_missing_checkbox',
  'value_missing_file',
  'type_mismatch_email',
  'type_mismatch_url',
  'bad_input_number',
  'bad_input_date',
  'pattern_mismatch',
  'pattern_mismatch_hint',
  'too_long',
  'too_short',
  'range_underflow',
  'range_overflow',
  'range_underflow_date',
  'range_overflow_date',
  'step_mismatch',
  'step_mismatch_one',
  'invalid',
] as const;

export type ValidationMessageKey = (typeof VALIDATION_MESSAGE_KEYS)[number];

/**
 * A message key and the values it quotes: numbers are written by the message (`{min, number}`, plurals),
 * a date limit is the UTC midnight of its day (`{min, date, calendar_day}` writes it in UTC).
 */
export interface ValidationMessage {
  key: ValidationMessageKey;
  values?: Record<string, string | number | Date>;
}

/** The part of a control's ValidityState a message is chosen by. */
export type ValidityFlags = Pick<ValidityState, 'valueMissing' | 'typeMismatch' | 'patternMismatch' | 'tooLong' | 'tooShort' | 'rangeUnderflow' | 'rangeOverflow' | 'stepMismatch' | 'badInput'>;

/** A form control as its constraints see it, its attributes as the DOM gives them. */
export interface ControlState {
  /** The element's `type`: an input's ('email', 'number', 'date', 'file', 'checkbox'...), 'select-one', 'select-multiple' or 'textarea'. */
  type: string;
  validity: ValidityFlags;
  value: string;
  /** -1 when not set, as the DOM's `minLength` and `maxLength` say it. */
  minLength: number;
  maxLength: number;
  min: string;
  max: string;
  step: string;
  /** The `value` attribute: where steps count from when there is no `min`. */
  defaultValue: string;
  /** The `title` attribute: browsers add it to a pattern's message, as the description of the format. */
  title: string;
}

/**
 * The message for what is wrong with `control`, or null when nothing is. When several constraints fail,
 * the one chosen is the one Chromium names (InputType::ValidationMessage): an unreadable value first (a
 * number input's "1e"), then a missing value, the type, the pattern, the length, the range, the step.
 */
export function validationMessage(control: ControlState): ValidationMessage | null {
  const { validity, type } = control;
  if (validity.badInput) return { key: type === 'number' ? 'bad_input_number' : type === 'date' ? 'bad_input_date' : 'invalid' };
  if (validity.valueMissing) return { key: missingValueKey(type) };
  if (validity.typeMismatch) return { key: type === 'email' ? 'type_mismatch_email' : type === 'url' ? 'type_mismatch_url' : 'invalid' };
  if (validity.patternMismatch) return control.title ? { key: 'pattern_mismatch_hint', values: { hint: control.title } } : { key: 'pattern_mismatch' };
  // The lengths count UTF-16 code units, as the browser's check does.
  if (validity.tooLong) return { key: 'too_long', values: { max: control.maxLength, length: control.value.length } };
  if (validity.tooShort) return { key: 'too_short', values: { min: control.minLength, length: control.value.length } };
  if (validity.rangeUnderflow) return rangeMessage('underflow', type, control.min);
  if (validity.rangeOverflow) return rangeMessage('overflow', type, control.max);
  if (validity.stepMismatch) return stepMessage(control);
  return null;
}

/** A required control left empty: what the person has to do differs by its kind. */
function missingValueKey(type: string): ValidationMessageKey {
  if (type === 'checkbox') return 'value_missing_checkbox';
  if (type === 'file') return 'value_missing_file';
  if (type === 'radio' || type === 'select-one' || type === 'select-multiple') return 'value_missing_choice';
  return 'value_missing';
}

/** A value below `min` or above `max`, quoting the limit: a number, or a date (`YYYY-MM-DD`, a date input's). */
function rangeMessage(direction: 'underflow' | 'overflow', type: string, limit: string): ValidationMessage {
  const name = direction === 'underflow' ? 'min' : 'max';
  const number = parseNumber(limit);
  if ((type === 'number' || type === 'range') && number !== null) return { key: `range_${direction}`, values: { [name]: number } };
  const day = type === 'date' ? calendarDay(limit) : null;
  if (day) return { key: `range_${direction}_date`, values: { [name]: day } };
  // Times, months and weeks have limits too; no form here uses them.
  return { key: 'invalid' };
}

/**
 * A number between the steps: the nearest allowed values below and above it, as browsers say them. Steps
 * count from `min`, else from the `value` attribute, else from 0; the one above is left out when past `max`.
 */
function stepMessage(control: ControlState): ValidationMessage {
  const step = stepSize(control.step);
  const value = parseNumber(control.value);
  if ((control.type !== 'number' && control.type !== 'range') || step === null || value === null) return { key: 'invalid' };
  const base = parseNumber(control.min) ?? parseNumber(control.defaultValue) ?? 0;
  // Rounded to the step's and base's decimals: 0.1 steps would otherwise give 0.30000000000000004.
  const decimals = Math.min(100, Math.max(decimalsOf(step), decimalsOf(base)));
  const below = Number((base + Math.floor((value - base) / step) * step).toFixed(decimals));
  const above = Number((below + step).toFixed(decimals));
  const max = parseNumber(control.max);
  if (max !== null && above > max) return { key: 'step_mismatch_one', values: { nearest: below } };
  return { key: 'step_mismatch', values: { below, above } };
}

/** The `step` attribute's size: null for "any" (no step); 1 when missing or not a positive number, the default of number inputs. */
function stepSize(step: string): number | null {
  if (step.trim().toLowerCase() === 'any') return null;
  const size = parseNumber(step);
  return size !== null && size > 0 ? size : 1;
}

/** A number the way attributes and number inputs hold one; null for an empty or unreadable one. */
function parseNumber(text: string): number | null {
  if (!text.trim()) return null;
  const number = Number(text);
  return Number.isFinite(number) ? number : null;
}

/** Digits after the decimal point of a number as JavaScript writes it (1e-7 has 7). */
function decimalsOf(n: number): number {
  const [mantissa = '', exponent = '0'] = String(n).split('e');
  return Math.max(0, (mantissa.split('.')[1]?.length ?? 0) - Number(exponent));
}

/** A `YYYY-MM-DD` day as the UTC midnight that starts it; null for anything else. */
function calendarDay(text: string): Date | null {
  const m = /^(\d{4,})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const day = new Date(0);
  // setUTCFullYear, not Date.UTC: that one reads years 0-99 as 1900-1999.
  day.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isNaN(day.getTime()) ? null : day;
}
