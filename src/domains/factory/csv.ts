/** A small RFC 4180 CSV reader for the batch import (SPEC 4.8): quoted fields, CRLF or LF. */

/**
 * Splits CSV text into rows of fields; a trailing empty line is dropped. It stops after
 * `maxRows` rows (the caller sees `maxRows` rows and knows there were more).
 */
export function parseCsv(text: string, maxRows = Infinity): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a BOM from spreadsheet exports
  for (; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === "") quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      if (rows.length >= maxRows) return rows;
      row = [];
      field = "";
    } else field += ch;
  }
  if (field !== "" || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

export interface ImportRow {
  /** 1-based data row number (the header is row 0). */
  row: number;
  serial: string;
  sku?: string;
  hwRevision?: string;
}

export type ImportParse =
  | { ok: true; rows: ImportRow[]; errors: Array<{ row: number; serial: string; error: string }> }
  | { ok: false; error: string; tooLarge?: true };

const SERIAL = /^[A-Za-z0-9._:-]{1,64}$/;
/**
 * Data rows (blank lines included) one import may hold. 4 MiB of two-byte rows would be two
 * million rows: parsed, validated and reported one by one, that holds far more memory and time
 * than the file's size suggests, so the row count has its own limit.
 */
export const MAX_IMPORT_ROWS = 50_000;
/** Like the JSON body's `sku` and `hwRevision`: at most 100 characters, no NUL. */
const MAX_TEXT = 100;

/**
 * Reads the import file: a header naming `serial` (required), `sku` and `hwRevision` in any
 * order; blank lines are skipped; rows with a missing or malformed serial become row errors.
 */
export function parseImport(text: string, maxRows = MAX_IMPORT_ROWS): ImportParse {
  const [header, ...data] = parseCsv(text, maxRows + 2);
  if (!header) return { ok: false, error: "CSV file is empty" };
  if (data.length > maxRows) {
    return { ok: false, error: `CSV file has more than ${maxRows} rows`, tooLarge: true };
  }
  const names = header.map((h) => h.trim());
  const col = (name: string) => names.findIndex((h) => h.toLowerCase() === name.toLowerCase());
  const serialAt = col("serial");
  if (serialAt < 0) return { ok: false, error: "CSV header must name a serial column" };
  const skuAt = col("sku");
  const revAt = col("hwRevision");
  const rows: ImportRow[] = [];
  const errors: Array<{ row: number; serial: string; error: string }> = [];
  data.forEach((fields, index) => {
    if (fields.every((f) => f.trim() === "")) return;
    const row = index + 1;
    const serial = (fields[serialAt] ?? "").trim();
    const optional = (at: number) => (at >= 0 && fields[at]?.trim()) || undefined;
    const sku = optional(skuAt);
    const hwRevision = optional(revAt);
    // A row error, not a failed import: PostgreSQL cannot store NUL, and the body's limits hold.
    const badText = [["sku", sku], ["hwRevision", hwRevision]].find(([, v]) =>
      v !== undefined && (v.length > MAX_TEXT || v.includes("\u0000"))
    );
    if (!serial) errors.push({ row, serial, error: "serial is required" });
    else if (!SERIAL.test(serial)) {
      errors.push({ row, serial, error: "serial must be 1-64 letters, digits or ._:-" });
    } else if (badText) {
      errors.push({
        row,
        serial,
        error: `${badText[0]} must be at most ${MAX_TEXT} characters without NUL`,
      });
    } else rows.push({ row, serial, sku, hwRevision });
  });
  return { ok: true, rows, errors };
}
