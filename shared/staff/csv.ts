// CSV cells for files that staff open in spreadsheets. A cell that starts with = + - @ (or a tab or
// carriage return) would run as a formula there (CSV injection, OWASP), so it gets a leading quote.
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string | null | undefined): string {
  if (value === null || value === undefined) return '';
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** One CSV record with its CRLF (RFC 4180). */
export function csvRow(values: (string | null | undefined)[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
