/**
 * Output checks of a push render (issue 12), run before a push can reach QUEUE: `image.png`
 * decodes to an 800x480 1-bit grey PNG whose pixels are exactly `image2.raw` (48000 bytes), and
 * `image4.raw` is 96000 bytes. A render that fails one is a render failure, recorded on the push
 * and never served.
 */
import { inflateSync } from "node:zlib";
import { FRAME_HEIGHT, FRAME_WIDTH, type PushBitmaps } from "./types.ts";

const RAW2_BYTES = (FRAME_WIDTH / 8) * FRAME_HEIGHT;
const RAW4_BYTES = (FRAME_WIDTH / 4) * FRAME_HEIGHT;
const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The rows of a 1-bit grey, non-interlaced PNG (filters undone), or why it is not one. */
export function decodePng1Bit(
  png: Uint8Array,
): { ok: true; width: number; height: number; rows: Uint8Array } | { ok: false; reason: string } {
  if (png.length < 33 || !SIGNATURE.every((b, i) => png[i] === b)) {
    return { ok: false, reason: "not a PNG" };
  }
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let at = 8;
  let header: { width: number; height: number } | undefined;
  const idat: Uint8Array[] = [];
  while (at + 12 <= png.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...png.subarray(at + 4, at + 8));
    if (at + 12 + length > png.length) return { ok: false, reason: `${type} chunk is truncated` };
    const data = png.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") {
      const [depth, colour, , , interlace] = data.subarray(8, 13);
      if (depth !== 1 || colour !== 0 || interlace !== 0) {
        return { ok: false, reason: `PNG is not 1-bit grey (depth ${depth}, colour ${colour})` };
      }
      header = { width: view.getUint32(at + 8), height: view.getUint32(at + 12) };
    }
    if (type === "IDAT") idat.push(data);
    if (type === "IEND") break;
    at += 12 + length;
  }
  if (!header) return { ok: false, reason: "PNG has no IHDR" };
  const stride = (header.width + 7) >> 3;
  const expected = (stride + 1) * header.height;
  let filtered: Uint8Array;
  try {
    const joined = new Uint8Array(idat.reduce((n, part) => n + part.length, 0));
    let offset = 0;
    for (const part of idat) joined.set(part, offset), offset += part.length;
    filtered = new Uint8Array(inflateSync(joined, { maxOutputLength: expected + 1 }));
  } catch {
    return { ok: false, reason: "PNG image data does not inflate" };
  }
  if (filtered.length !== expected) {
    return { ok: false, reason: `PNG image data is ${filtered.length} bytes, not ${expected}` };
  }
  const rows = new Uint8Array(stride * header.height);
  for (let y = 0; y < header.height; y++) {
    const filter = filtered[y * (stride + 1)];
    const src = y * (stride + 1) + 1;
    const out = y * stride;
    for (let x = 0; x < stride; x++) {
      const left = x > 0 ? rows[out + x - 1] : 0;
      const up = y > 0 ? rows[out - stride + x] : 0;
      const corner = x > 0 && y > 0 ? rows[out - stride + x - 1] : 0;
      const raw = filtered[src + x];
      let value: number;
      if (filter === 0) value = raw;
      else if (filter === 1) value = raw + left;
      else if (filter === 2) value = raw + up;
      else if (filter === 3) value = raw + ((left + up) >> 1);
      else if (filter === 4) {
        const p = left + up - corner;
        const pa = Math.abs(p - left), pb = Math.abs(p - up), pc = Math.abs(p - corner);
        value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : corner);
      } else return { ok: false, reason: `PNG row ${y} has filter type ${filter}` };
      rows[out + x] = value & 0xff;
    }
  }
  return { ok: true, ...header, rows };
}

/** Why the three files of a push render are not what a device expects, or null when they are. */
export function checkPushBitmaps(bitmaps: PushBitmaps): string | null {
  if (bitmaps.raw2.length !== RAW2_BYTES) {
    return `image2.raw is ${bitmaps.raw2.length} bytes, not ${RAW2_BYTES}`;
  }
  if (bitmaps.raw4.length !== RAW4_BYTES) {
    return `image4.raw is ${bitmaps.raw4.length} bytes, not ${RAW4_BYTES}`;
  }
  const png = decodePng1Bit(bitmaps.png);
  if (!png.ok) return `image.png: ${png.reason}`;
  if (png.width !== FRAME_WIDTH || png.height !== FRAME_HEIGHT) {
    return `image.png is ${png.width}x${png.height}, not ${FRAME_WIDTH}x${FRAME_HEIGHT}`;
  }
  for (let i = 0; i < RAW2_BYTES; i++) {
    if (png.rows[i] !== bitmaps.raw2[i]) return "image.png and image2.raw differ";
  }
  return null;
}
