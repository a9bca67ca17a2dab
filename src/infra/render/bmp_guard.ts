/**
 * A BMP checked before fast-bmp sees it (issue 16). fast-bmp reads width and height as unsigned
 * (a top-down BMP's negative height becomes four billion rows) and allocates the whole frame
 * before it finds the pixel data missing. Here the header must describe what fast-bmp decodes
 * (BITMAPINFOHEADER or later, bottom-up, 1/8/24/32 bits, uncompressed or bit fields) and the
 * file must hold every row it promises.
 */
import { MAX_DECODED_BYTES, MAX_SOURCE_PIXELS, type Refusal, refuse } from "./limits.ts";

/** Bytes one stored row takes, as fast-bmp reads it. */
function rowBytes(width: number, bitsPerPixel: number): number {
  if (bitsPerPixel === 1) return Math.ceil(width / 32) * 4;
  const channels = bitsPerPixel / 8;
  return Math.ceil((width * channels) / 4) * 4;
}

/** Checks a BMP header against the file; ok, or why it is refused. */
export function guardBmp(bytes: Uint8Array): { ok: true } | Refusal {
  // fast-bmp reads the colour masks at 54..65 whatever the header says.
  if (bytes.length < 66) return refuse("undecodable", "BMP header is truncated");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dataOffset = view.getUint32(10, true);
  const infoSize = view.getUint32(14, true);
  const width = view.getInt32(18, true);
  const height = view.getInt32(22, true);
  const bitsPerPixel = view.getUint16(28, true);
  const compression = view.getUint32(30, true);
  if (infoSize < 40) return refuse("undecodable", "BMP core headers are not supported");
  if (height < 0) return refuse("undecodable", "Top-down BMPs are not supported");
  if (width <= 0 || height === 0) return refuse("undecodable", "Image has no pixels");
  if (![1, 8, 24, 32].includes(bitsPerPixel)) {
    return refuse("undecodable", `BMP with ${bitsPerPixel} bits per pixel is not supported`);
  }
  if (compression !== 0 && compression !== 3) {
    return refuse("undecodable", "Compressed BMPs are not supported");
  }
  if (width * height > MAX_SOURCE_PIXELS) {
    return refuse("too_large", `Image of ${width}x${height} is over ${MAX_SOURCE_PIXELS} pixels`);
  }
  if (width * height * Math.ceil(bitsPerPixel / 8) > MAX_DECODED_BYTES) {
    return refuse("too_large", `Image of ${width}x${height} is over the decoding budget`);
  }
  const needed = rowBytes(width, bitsPerPixel) * height;
  if (dataOffset < 14 + infoSize || dataOffset + needed > bytes.length) {
    return refuse("undecodable", `BMP pixel data is shorter than its ${width}x${height} header`);
  }
  return { ok: true };
}
