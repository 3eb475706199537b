// Zone names come from the runtime's CLDR data, whose wording moves between Node releases: the tests
// check what the label is made of, with the wording of one release as an example.
import { describe, expect, it } from 'vitest';
import { timeZoneChoices, timeZoneLabel } from '@/lib/i18n/time-zone';

const WINTER = new Date('2026-01-15T12:00:00Z');

describe('timeZoneLabel', () => {
  it('names a zone in the page’s language, with its IANA name and offset', () => {
    expect(timeZoneLabel('Europe/Moscow', 'en', WINTER)).toMatch(/^Moscow\b.*Time \(Europe\/Moscow, GMT\+03:00\)$/);
    expect(timeZoneLabel('Europe/Moscow', 'ru', WINTER)).toMatch(/^Москва.* \(Europe\/Moscow, GMT\+03:00\)$/);
    expect(timeZoneLabel('Europe/Bratislava', 'sk', WINTER)).toMatch(/^stredoeurópsky .*čas \(Europe\/Bratislava, GMT\+01:00\)$/);
    expect(timeZoneLabel('America/Los_Angeles', 'en', WINTER)).toMatch(/^Pacific\b.* \(America\/Los Angeles, GMT-08:00\)$/);
  });

  it('gives UTC its standard name, and a zone with no name its offset alone', () => {
    expect(timeZoneLabel('UTC', 'ru', WINTER)).toMatch(/^Всемирное координированное время \(UTC, GMT(\+00:00)?\)$/);
    expect(timeZoneLabel('Etc/GMT+5', 'en', WINTER)).toBe('Etc/GMT+5 (GMT-05:00)');
  });

  it('offers every zone once, in the order of the labels', () => {
    const choices = timeZoneChoices('ru', WINTER);
    expect(new Set(choices.map((c) => c.id)).size).toBe(choices.length);
    expect(choices.map((c) => c.id)).toContain('Europe/Moscow');
    const labels = choices.map((c) => c.label);
    expect(labels).toEqual([...labels].sort(new Intl.Collator('ru').compare));
  });
});
