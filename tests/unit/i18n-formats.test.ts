// Zone names as each language writes their numbers.
import { describe, expect, it } from 'vitest';
import { localizeZoneName } from '@/lib/i18n/formats';

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
