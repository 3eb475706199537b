// A table as CSV for a spreadsheet, in the form the user's spreadsheet reads without asking: where
// the language writes decimals with a comma (ru, sk), cells are separated by semicolons and numbers
// written with that comma; a byte-order mark tells Excel the text is UTF-8. Text cells that would
// start a formula (= + - @, a tab or a carriage return) get an apostrophe first, as OWASP advises
// against CSV injection: field and owner names come from imported files.

export type CsvCell = string | number | null;

/** The CSV text of `rows` (the first is the header) for `locale`, numbers to `digits[column]` decimals. */
export function toCsv(rows: CsvCell[][], locale: string, digits: Record<number, number> = {}): string {
  const decimalComma = new Intl.NumberFormat(locale).format(1.5).includes(',');
  const delimiter = decimalComma ? ';' : ',';
  const number = (n: number, column: number) =>
    new Intl.NumberFormat(locale, { minimumFractionDigits: digits[column] ?? 0, maximumFractionDigits: digits[column] ?? 20, useGrouping: false }).format(n);
  const cell = (value: CsvCell, column: number) => {
    if (value === null) return '';
    if (typeof value === 'number') return number(value, column);
    const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
    return /["\r\n,;]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return '\uFEFF' + rows.map((row) => row.map(cell).join(delimiter)).join('\r\n') + '\r\n';
}
