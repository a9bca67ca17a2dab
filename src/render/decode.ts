/**
 * Source decoding with its guards (issue 16): each format is checked by its guard, from the
 * header and the file's structure, before its decoder allocates anything; a guard's refusal is
 * returned as a value, like every other render failure.
 */
import { decode as decodeJpegJs } from "jpeg-js";
import { decode as decodeImageJs, decodePng } from "image-js";
import { guardBmp } from "./bmp_guard.ts";
import type { RawPixels } from "./grey.ts";
import { guardJpeg } from "./jpeg_guard.ts";
import { JPEG_DECODER_MEMORY_MB, MAX_SOURCE_PIXELS, type Refusal, refuse } from "./limits.ts";
import { guardPng } from "./png_guard.ts";
import type { ImageHeader } from "./sniff.ts";

/** Decoded pixels and the EXIF orientation that turns them upright (1 = as stored). */
export interface Decoded {
  ok: true;
  pixels: RawPixels;
  orientation: number;
}

function decodeJpeg(source: Uint8Array): Decoded | Refusal {
  const guard = guardJpeg(source);
  if (!guard.ok) return guard;
  // jpeg-js's own caps as well (image-js turns them off): resolution and accounted memory.
  const jpeg = decodeJpegJs(source, {
    useTArray: true,
    formatAsRGBA: false,
    maxResolutionInMP: MAX_SOURCE_PIXELS / 1e6,
    maxMemoryUsageInMB: JPEG_DECODER_MEMORY_MB,
  });
  return {
    ok: true,
    pixels: { width: jpeg.width, height: jpeg.height, channels: 3, maxValue: 255, data: jpeg.data },
    orientation: guard.orientation,
  };
}

function fromImageJs(image: ReturnType<typeof decodeImageJs>): Decoded {
  const raw = image.getRawImage();
  return {
    ok: true,
    pixels: { ...raw, maxValue: image.maxValue },
    orientation: 1,
  };
}

/** A guard's refusal as the render reports it: undecodable files say so first. */
function reported(result: Decoded | Refusal): Decoded | Refusal {
  if (result.ok || result.code !== "undecodable") return result;
  return refuse("undecodable", `Image could not be decoded: ${result.message}`);
}

/** Decodes a PNG, JPEG or BMP whose header was sniffed as `header`. */
export function decodeSource(source: Uint8Array, header: ImageHeader): Decoded | Refusal {
  return reported(decodeChecked(source, header));
}

function decodeChecked(source: Uint8Array, header: ImageHeader): Decoded | Refusal {
  try {
    if (header.format === "jpeg") return decodeJpeg(source);
    if (header.format === "png") {
      const guard = guardPng(source);
      return guard.ok ? fromImageJs(decodePng(guard.png)) : guard;
    }
    if (header.format === "bmp") {
      const guard = guardBmp(source);
      return guard.ok ? fromImageJs(decodeImageJs(source)) : guard;
    }
    return refuse("unsupported_format", `${header.format.toUpperCase()} images are not supported`);
  } catch (error) {
    return refuse("undecodable", error instanceof Error ? error.message : String(error));
  }
}
