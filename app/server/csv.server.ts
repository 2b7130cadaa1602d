/**
 * CSV as RFC 4180 writes it, safe to open in a spreadsheet. Every field is quoted (quotes
 * doubled), so commas, quotes and line breaks inside a value stay inside it. A value that
 * starts like a formula (= + - @, or a tab or carriage return that some spreadsheets skip
 * before one) gets a leading apostrophe: spreadsheets then show it as text instead of running
 * it (OWASP's advice against CSV injection). Audit rows hold what visitors typed (names,
 * user agents), so this is not hypothetical.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export type CsvValue = string | number | boolean | Date | null | undefined;

export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  let text = value instanceof Date ? value.toISOString() : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return `"${text.replaceAll('"', '""')}"`;
}

/** One record, with the CRLF line ending the RFC names. */
export function csvRow(values: readonly CsvValue[]): string {
  return `${values.map(csvField).join(",")}\r\n`;
}
