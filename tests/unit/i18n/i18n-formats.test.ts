// Zone names as each language writes their numbers.
import { describe, expect, it } from 'vitest';
import { localizeZoneName } from '@/lib/i18n/formats';
import { translate } from '@/lib/i18n/messages';

describe('localizeZoneName', () => {
  it('writes the range with the language’s decimal separator and keeps its digits', () => {
    expect(localizeZoneName('2: 0.18–0.34', 'ru')).toBe('2: 0,18–0,34');
    expect(localizeZoneName('2: 0.18–0.34', 'sk')).toBe('2: 0,18–0,34');
    expect(localizeZoneName('2: 0.18–0.34', 'en')).toBe('2: 0.18–0.34');
    expect(localizeZoneName('1: -0.125–0.50', 'ru')).toMatch(/^1: [-−]0,125–0,50$/);
  });

  it('leaves a name without decimals as it is', () => {
    expect(localizeZoneName('Низкая урожайность 1', 'ru')).toBe('Низкая урожайность 1');
  });
});

describe('numbers in messages', () => {
  it('are written as the language writes them: a decimal comma in ru and sk', () => {
    const params = { min: -18.52, max: 56.81 };
    expect(translate('ru', 'errors.raster_index_range', params)).toMatch(/от [-−]18,52 до 56,81/);
    expect(translate('sk', 'errors.raster_index_range', params)).toMatch(/od [-−]18,52 do 56,81/);
    expect(translate('en', 'errors.raster_index_range', params)).toContain('from -18.52 to 56.81');
  });
});
