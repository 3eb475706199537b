// The message a form control's failed native constraint gets in the interface's language (lib/ui/validation-message.ts),
// the catalogues' texts for it, and that every form uses the component that gives them (components/ui/validation-messages.tsx).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createTranslator } from 'next-intl';
import { describe, expect, it } from 'vitest';
import { FORMATS } from '@/lib/i18n/formats';
import { LOCALES } from '@/lib/i18n/locales';
import { MESSAGES } from '@/lib/i18n/messages';
import { type ControlState, VALIDATION_MESSAGE_KEYS, type ValidityFlags, validationMessage } from '@/lib/ui/validation-message';

const VALID: ValidityFlags = {
  valueMissing: false,
  typeMismatch: false,
  patternMismatch: false,
  tooLong: false,
  tooShort: false,
  rangeUnderflow: false,
  rangeOverflow: false,
  stepMismatch: false,
  badInput: false,
};

/** A text input with no constraints, failing `failed`, with `attributes` set. */
function control(failed: (keyof ValidityFlags)[], attributes: Partial<Omit<ControlState, 'validity'>> = {}): ControlState {
  const validity = { ...VALID, ...Object.fromEntries(failed.map((f) => [f, true])) };
  return { type: 'text', validity, value: '', minLength: -1, maxLength: -1, min: '', max: '', step: '', defaultValue: '', title: '', ...attributes };
}

describe('validationMessage', () => {
  it('is null for a valid control', () => {
    expect(validationMessage(control([]))).toBeNull();
  });

  it('asks for a missing value in the words of the control: text, choice, checkbox, file', () => {
    expect(validationMessage(control(['valueMissing']))).toEqual({ key: 'value_missing' });
    expect(validationMessage(control(['valueMissing'], { type: 'email' }))).toEqual({ key: 'value_missing' });
    expect(validationMessage(control(['valueMissing'], { type: 'textarea' }))).toEqual({ key: 'value_missing' });
    expect(validationMessage(control(['valueMissing'], { type: 'select-one' }))).toEqual({ key: 'value_missing_choice' });
    expect(validationMessage(control(['valueMissing'], { type: 'radio' }))).toEqual({ key: 'value_missing_choice' });
    expect(validationMessage(control(['valueMissing'], { type: 'checkbox' }))).toEqual({ key: 'value_missing_checkbox' });
    expect(validationMessage(control(['valueMissing'], { type: 'file' }))).toEqual({ key: 'value_missing_file' });
  });

  it('names the expected kind of an email or a web address', () => {
    expect(validationMessage(control(['typeMismatch'], { type: 'email', value: 'olga' }))).toEqual({ key: 'type_mismatch_email' });
    expect(validationMessage(control(['typeMismatch'], { type: 'url', value: 'example' }))).toEqual({ key: 'type_mismatch_url' });
  });

  it('quotes the length asked for and the one typed', () => {
    expect(validationMessage(control(['tooShort'], { type: 'password', value: 'abc', minLength: 8 }))).toEqual({ key: 'too_short', values: { min: 8, length: 3 } });
    expect(validationMessage(control(['tooLong'], { value: 'abcdef', maxLength: 4 }))).toEqual({ key: 'too_long', values: { max: 4, length: 6 } });
  });

  it("adds the pattern's description from the title, when there is one", () => {
    expect(validationMessage(control(['patternMismatch'], { value: '61-02' }))).toEqual({ key: 'pattern_mismatch' });
    expect(validationMessage(control(['patternMismatch'], { value: '61-02', title: 'Groups of digits' }))).toEqual({ key: 'pattern_mismatch_hint', values: { hint: 'Groups of digits' } });
  });

  it('quotes a number limit as a number and a date limit as the UTC midnight of its day', () => {
    expect(validationMessage(control(['rangeUnderflow'], { type: 'number', value: '5', min: '20', max: '500' }))).toEqual({ key: 'range_underflow', values: { min: 20 } });
    expect(validationMessage(control(['rangeOverflow'], { type: 'number', value: '600', min: '20', max: '500' }))).toEqual({ key: 'range_overflow', values: { max: 500 } });
    expect(validationMessage(control(['rangeUnderflow'], { type: 'date', value: '1800-05-01', min: '1900-01-01' }))).toEqual({
      key: 'range_underflow_date',
      values: { min: new Date('1900-01-01T00:00:00Z') },
    });
    expect(validationMessage(control(['rangeOverflow'], { type: 'date', value: '2100-01-01', max: '2099-12-31' }))).toEqual({
      key: 'range_overflow_date',
      values: { max: new Date('2099-12-31T00:00:00Z') },
    });
    // Limits of kinds no form uses (a time) fall back to the general message rather than quote them wrongly.
    expect(validationMessage(control(['rangeUnderflow'], { type: 'time', value: '07:00', min: '08:00' }))).toEqual({ key: 'invalid' });
  });

  it('gives the nearest allowed values of a number between steps, counted from min', () => {
    expect(validationMessage(control(['stepMismatch'], { type: 'number', value: '10.5', min: '0', max: '359', step: '1' }))).toEqual({ key: 'step_mismatch', values: { below: 10, above: 11 } });
    // From min, not from 0: steps of 5 from 3 are 3, 8, 13...
    expect(validationMessage(control(['stepMismatch'], { type: 'number', value: '10', min: '3', step: '5' }))).toEqual({ key: 'step_mismatch', values: { below: 8, above: 13 } });
    // Decimal steps without floating-point dust.
    expect(validationMessage(control(['stepMismatch'], { type: 'number', value: '0.35', min: '0', step: '0.1' }))).toEqual({ key: 'step_mismatch', values: { below: 0.3, above: 0.4 } });
    // No min: from the value attribute, else from 0; no step attribute: steps of 1.
    expect(validationMessage(control(['stepMismatch'], { type: 'number', value: '4', defaultValue: '0.5', step: '2' }))).toEqual({ key: 'step_mismatch', values: { below: 2.5, above: 4.5 } });
    expect(validationMessage(control(['stepMismatch'], { type: 'number', value: '2.5' }))).toEqual({ key: 'step_mismatch', values: { below: 2, above: 3 } });
  });

  it('names only the value below when the one above is past max', () => {
    expect(validationMessage(control(['stepMismatch'], { type: 'number', value: '358.5', min: '0', max: '359', step: '2' }))).toEqual({ key: 'step_mismatch_one', values: { nearest: 358 } });
  });

  it('says a value the browser could not read is not a number or not a date, before it says it is missing', () => {
    expect(validationMessage(control(['badInput', 'valueMissing'], { type: 'number' }))).toEqual({ key: 'bad_input_number' });
    expect(validationMessage(control(['badInput', 'valueMissing'], { type: 'date' }))).toEqual({ key: 'bad_input_date' });
  });

  it("follows the browser's order when several constraints fail: missing, type, pattern, length, range, step", () => {
    const all: (keyof ValidityFlags)[] = ['valueMissing', 'typeMismatch', 'patternMismatch', 'tooLong', 'tooShort', 'rangeUnderflow', 'rangeOverflow', 'stepMismatch'];
    const keys = all.map((_, i) => validationMessage(control(all.slice(i), { type: 'number', value: '1', min: '0', max: '10', step: '2', minLength: 2, maxLength: 0 }))?.key);
    expect(keys).toEqual(['value_missing', 'invalid', 'pattern_mismatch', 'too_long', 'too_short', 'range_underflow', 'range_overflow', 'step_mismatch']);
  });
});

describe('the validation_ui messages', () => {
  it('are exactly the keys validationMessage chooses from, in ru, en and sk', () => {
    for (const locale of LOCALES) expect(Object.keys(MESSAGES[locale].validation_ui).sort(), locale).toEqual([...VALIDATION_MESSAGE_KEYS].sort());
  });

  // A global zone west of UTC: a date limit written in it would fall on the day before.
  const translators = Object.fromEntries(
    LOCALES.map((locale) => [locale, createTranslator({ locale, messages: MESSAGES[locale], namespace: 'validation_ui', formats: FORMATS, timeZone: 'America/Los_Angeles' })]),
  );
  const say = (locale: (typeof LOCALES)[number], control: ControlState) => {
    const message = validationMessage(control);
    if (!message) throw new Error('no message');
    return translators[locale]!(message.key, message.values);
  };

  it('all format in every language with the values they are given', () => {
    const samples: ControlState[] = [
      control(['valueMissing']),
      control(['valueMissing'], { type: 'select-one' }),
      control(['valueMissing'], { type: 'checkbox' }),
      control(['valueMissing'], { type: 'file' }),
      control(['typeMismatch'], { type: 'email' }),
      control(['typeMismatch'], { type: 'url' }),
      control(['badInput'], { type: 'number' }),
      control(['badInput'], { type: 'date' }),
      control(['patternMismatch']),
      control(['patternMismatch'], { title: 'hint' }),
      control(['tooLong'], { value: 'abc', maxLength: 2 }),
      control(['tooShort'], { value: 'a', minLength: 2 }),
      control(['rangeUnderflow'], { type: 'number', min: '20' }),
      control(['rangeOverflow'], { type: 'number', max: '500' }),
      control(['rangeUnderflow'], { type: 'date', min: '1900-01-01' }),
      control(['rangeOverflow'], { type: 'date', max: '2100-01-01' }),
      control(['stepMismatch'], { type: 'number', value: '1.5' }),
      control(['stepMismatch'], { type: 'number', value: '1.5', max: '1.7' }),
      control(['typeMismatch'], { type: 'tel' }),
    ];
    const keys = samples.map((s) => validationMessage(s)?.key);
    expect(new Set(keys)).toEqual(new Set(VALIDATION_MESSAGE_KEYS));
    for (const locale of LOCALES) {
      for (const sample of samples) {
        const text = say(locale, sample);
        expect(text, `${locale} ${validationMessage(sample)?.key}`).toMatch(/^\p{Lu}.*\S$/u);
        expect(text).not.toMatch(/[{}]|validation_ui/);
      }
    }
  });

  it('say the lengths with the plural forms of each language', () => {
    const short = (minLength: number, value: string) => control(['tooShort'], { type: 'password', value, minLength });
    expect(say('ru', short(8, 'abc'))).toBe('Введите не менее 8 символов (вы ввели 3).');
    expect(say('ru', short(21, 'abc'))).toBe('Введите не менее 21 символа (вы ввели 3).');
    expect(say('ru', short(3, 'a'))).toBe('Введите не менее 3 символов (вы ввели 1).');
    expect(say('en', short(8, 'abc'))).toBe('Enter at least 8 characters (you entered 3).');
    expect(say('en', short(1, ''))).toBe('Enter at least 1 character (you entered 0).');
    expect(say('sk', short(8, 'abc'))).toBe('Zadajte aspoň 8 znakov (zadali ste 3).');
    expect(say('sk', short(3, 'a'))).toBe('Zadajte aspoň 3 znaky (zadali ste 1).');
    expect(say('sk', short(1, ''))).toBe('Zadajte aspoň 1 znak (zadali ste 0).');
    expect(say('ru', control(['tooLong'], { value: 'x'.repeat(256), maxLength: 255 }))).toBe('Введите не более 255 символов (вы ввели 256).');
  });

  it('write numbers and dates the way each language does, a date on its own day whatever the zone', () => {
    const step = control(['stepMismatch'], { type: 'number', value: '0.35', min: '0', step: '0.1' });
    expect(say('ru', step)).toBe('Введите допустимое значение: ближайшие — 0,3 и 0,4.');
    expect(say('en', step)).toBe('Enter a valid value: the nearest are 0.3 and 0.4.');
    expect(say('sk', step)).toBe('Zadajte platnú hodnotu: najbližšie sú 0,3 a 0,4.');
    const day = control(['rangeUnderflow'], { type: 'date', value: '1800-01-01', min: '1900-01-01' });
    expect(say('ru', day)).toBe('Укажите дату не раньше 1 января 1900 г.');
    expect(say('en', day)).toBe('Enter a date no earlier than January 1, 1900.');
    expect(say('sk', day)).toBe('Zadajte dátum nie skorší ako 1. januára 1900.');
    // A year without grouping ("2 100" in ru), and every decimal of a fine step.
    expect(say('ru', control(['rangeOverflow'], { type: 'number', value: '3000', max: '2100' }))).toBe('Введите значение не больше 2100.');
    expect(say('sk', control(['stepMismatch'], { type: 'number', value: '0.00015', min: '0', step: '0.0001' }))).toBe('Zadajte platnú hodnotu: najbližšie sú 0,0001 a 0,0002.');
  });
});

describe('forms', () => {
  const ROOT = join(import.meta.dirname, '..', '..', '..');
  const sources = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? sources(p) : p.endsWith('.tsx') ? [p] : [];
    });

  it('are all <Form> (components/ui/validation-messages.tsx), so their constraints speak the user\'s language', () => {
    const files = [...sources(join(ROOT, 'app')), ...sources(join(ROOT, 'components'))].filter((f) => !f.endsWith(join('ui', 'validation-messages.tsx')));
    const plain = files.filter((f) => /<form[\s>]/.test(readFileSync(f, 'utf8'))).map((f) => f.slice(ROOT.length + 1));
    expect(plain).toEqual([]);
    // The scan really reads the forms.
    expect(files.filter((f) => readFileSync(f, 'utf8').includes('<Form')).length).toBeGreaterThan(10);
  });
});
