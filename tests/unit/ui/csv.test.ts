// The fields table as CSV: delimiters and decimals by language, quoting, and formula injection.
import { describe, expect, it } from 'vitest';
import { toCsv } from '@/lib/ui/csv';

describe('toCsv', () => {
  it('uses commas and decimal points in en, semicolons and decimal commas in ru and sk', () => {
    const rows = [['Name', 'Area, ha', 'Mean'], ['North', 12.5, -0.0421]];
    expect(toCsv(rows, 'en', { 1: 4, 2: 3 })).toBe('\uFEFFName,"Area, ha",Mean\r\nNorth,12.5000,-0.042\r\n');
    expect(toCsv(rows, 'sk', { 1: 4, 2: 3 })).toBe('\uFEFFName;"Area, ha";Mean\r\nNorth;12,5000;-0,042\r\n');
    expect(toCsv([['Поле', 1234567.5]], 'ru', { 1: 1 })).toBe('\uFEFFПоле;1234567,5\r\n');
  });

  it('quotes what would split a cell, and empties a missing value', () => {
    expect(toCsv([['say "hi"', 'two\nlines', null, 'a;b']], 'en')).toBe('\uFEFF"say ""hi""","two\nlines",,"a;b"\r\n');
  });

  it('keeps a text cell from starting a formula, but not a negative number', () => {
    expect(toCsv([['=HYPERLINK("x")', '+1', '-2', '@SUM(A1)', 'plain', -2]], 'en')).toBe('\uFEFF"\'=HYPERLINK(""x"")",\'+1,\'-2,\'@SUM(A1),plain,-2\r\n');
  });
});
