import { describe, expect, it } from 'vitest';
import { transferAmount } from '@/lib/ui/transfer-amount';

describe('transferAmount', () => {
  it('counts a small file in kilobytes, so that 60 % of 100 kB does not read "0 / 0.1 MB"', () => {
    expect(transferAmount(60_000, 100_000, 'en')).toBe('58.6 / 97.7 kB');
    expect(transferAmount(0, 100_000, 'en')).toBe('0 / 97.7 kB');
  });

  it('fits the unit to the file and keeps both figures in it', () => {
    expect(transferAmount(400, 900, 'en')).toBe('400 / 900 byte');
    expect(transferAmount(3_355_443, 13_107_200, 'en')).toBe('3.2 / 12.5 MB');
    expect(transferAmount(300 * 1024 ** 2, 700 * 1024 ** 2, 'en')).toBe('300 / 700 MB');
    expect(transferAmount(2 * 1024 ** 3, 5 * 1024 ** 3, 'en')).toBe('2 / 5 GB');
  });

  it('writes the language’s decimal comma and unit name', () => {
    expect(transferAmount(60_000, 100_000, 'ru')).toBe('58,6 / 97,7 кБ');
    expect(transferAmount(60_000, 100_000, 'sk')).toBe('58,6 / 97,7 kB');
  });

  it('never shows more sent than the whole', () => {
    expect(transferAmount(200_000, 100_000, 'en')).toBe('97.7 / 97.7 kB');
  });
});
