// The one CSV writer of the service: every CSV it answers (a report, an evaluation run's export)
// is written through csvDocument, so quoting and the defusing of formulas are decided once.
// Quoting is RFC 4180 section 2: a field holding a comma, a double quote, CR or LF is enclosed in
// double quotes and its double quotes doubled; lines end with CRLF.
// Formulas (OWASP "CSV Injection"): a spreadsheet opening the file evaluates a cell that starts with
// = + - @ (and, after a tab or a carriage return, what follows them), whether or not the field was
// quoted; such a text cell gets a leading apostrophe, which spreadsheets read as "this is text".
// Leading blanks are looked through, since an import that trims them would otherwise meet the
// formula. A number written as a number is a value, never a formula, and is kept as it is.

export type CsvValue = string | number | boolean | null | undefined;

/** Whether a text cell would be read as a formula. */
const FORMULA = /^[\s]*[=+\-@]|^[\t\r]/;

/** One field: empty for null and undefined; a text that could start a formula begins with `'`. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  const text = FORMULA.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The rows as one CSV document, each line ended with CRLF (RFC 4180 section 2, rules 1 and 2). */
export function csvDocument(rows: readonly (readonly CsvValue[])[]): string {
  return rows.map((row) => `${row.map(csvCell).join(",")}\r\n`).join("");
}
