/**
 * What a display says in its headers (TRMNL's pull protocol, ../shared/TRMNL.md): its MAC, the
 * values its polls report (battery, signal, firmware, panel), and the panel those values
 * describe. Parsing only; nothing here reads the database.
 */
import { badRequest } from "../../errors.ts";

/** The Wi-Fi MAC: six hex pairs, separated by colons or dashes, or none. */
const MAC = /^[0-9a-f]{2}([:-]?)[0-9a-f]{2}(?:\1[0-9a-f]{2}){4}$/i;
/** Headers a poll reports, kept raw in the device's `state` (lower-case names). */
export const REPORTED_HEADERS = [
  "battery-voltage",
  "percent-charged",
  "rssi",
  "fw-version",
  "fw-commit",
  "model",
  "width",
  "height",
  "png-width",
  "png-height",
  "refresh-rate",
  "update-source",
  "wake-time",
  "image-cached",
  "temperature-profile",
  "battery-charging",
  "usb-connected",
  "wifi-band",
  "user-agent",
] as const;

/** The largest Width/Height a panel may report (TRMNL X is 1872x1404). */
export const MAX_PANEL_SIDE = 4096;

/** A MAC header as 12 lower-case hex characters, or null when it is not one. */
export function normalizeMac(value: string | null): string | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (!MAC.test(trimmed)) return null;
  return trimmed.replace(/[:-]/g, "").toLowerCase();
}

/** The reported headers worth keeping: short, printable values only. */
export function reportedHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of REPORTED_HEADERS) {
    const value = headers.get(name);
    if (value !== null && value.length <= 64 && /^[\x20-\x7e]*$/.test(value)) {
      out[name] = value.trim();
    }
  }
  for (const name of ["width", "height", "png-width", "png-height"] as const) {
    const value = out[name];
    if (value === undefined) continue;
    const side = Number(value);
    if (!/^\d+$/.test(value) || side < 1 || side > MAX_PANEL_SIDE) {
      throw badRequest(`${name} must be 1 to ${MAX_PANEL_SIDE}`);
    }
  }
  return out;
}

/**
 * The panel a poll's headers report: its model and size. TRMNL's Kindle client sends no `Model`
 * and asks for a landscape picture of its portrait framebuffer: `png-width` is the framebuffer's
 * height, `png-height` its width (models.ts, `kindle`).
 */
export function panelReported(reported: Record<string, string>, model: string | null) {
  const side = (value: string | undefined) => value && /^\d+$/.test(value) ? Number(value) : null;
  const kindle = reported.model === undefined &&
    (reported["png-width"] !== undefined || /^trmnl-kindle\//i.test(reported["user-agent"] ?? ""));
  return {
    model: reported.model ?? (kindle ? "kindle" : model),
    reported_width: side(reported.width) ?? (kindle ? side(reported["png-height"]) : null),
    reported_height: side(reported.height) ?? (kindle ? side(reported["png-width"]) : null),
  };
}
