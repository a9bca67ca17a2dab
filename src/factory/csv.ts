/** A small RFC 4180 CSV reader for the batch import (SPEC 4.8): quoted fields, CRLF or LF. */

/** Splits CSV text into rows of fields; a trailing empty line is dropped. */
export function parseCsv(text: string): string[][] {
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
  | { ok: false; error: string };

const SERIAL = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Reads the import file: a header naming `serial` (required), `sku` and `hwRevision` in any
 * order; blank lines are skipped; rows with a missing or malformed serial become row errors.
 */
export function parseImport(text: string): ImportParse {
  const [header, ...data] = parseCsv(text);
  if (!header) return { ok: false, error: "CSV file is empty" };
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
    if (!serial) errors.push({ row, serial, error: "serial is required" });
    else if (!SERIAL.test(serial)) {
      errors.push({ row, serial, error: "serial must be 1-64 letters, digits or ._:-" });
    } else rows.push({ row, serial, sku: optional(skuAt), hwRevision: optional(revAt) });
  });
  return { ok: true, rows, errors };
}
