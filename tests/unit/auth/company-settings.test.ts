import { describe, expect, it } from 'vitest';
import { parseSettings } from '@/lib/auth/company-settings';

describe('parseSettings', () => {
  it('reads stored settings that are an object', () => {
    expect(parseSettings('{"time_zone":"Europe/Moscow","zone_rates":{"1":120}}')).toEqual({ time_zone: 'Europe/Moscow', zone_rates: { 1: 120 } });
    expect(parseSettings('{}')).toEqual({});
  });

  it('reads anything else as no settings rather than failing every page', () => {
    for (const stored of ['null', '[1,2]', '"Europe/Moscow"', '42', 'true', 'not json', '']) expect(parseSettings(stored), stored).toEqual({});
  });
});
