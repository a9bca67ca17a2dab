/**
 * Source decoding (issue 12): libvips through sharp for PNG, JPEG, WebP, GIF (first frame),
 * AVIF and TIFF, fast-bmp for BMP (libvips has no BMP loader). sharp turns the picture upright
 * from its EXIF orientation and resizes it in the same streamed pipeline, so a JPEG larger than
 * twice the box is shrunk while it is decoded. Every source is checked before a decoder allocates
 * for it (issue 16): its size from the header against its format's pixel limit, and the guard
 * of its format where libvips alone would pay for a hostile file (png_guard, jpeg_guard,
 * bmp_guard). Refusals are values, as they cross the worker thread boundary.
 */
import { decode as decodeBmp } from "fast-bmp";
import sharp, { type SharpInput, type SharpOptions } from "sharp";
import { guardBmp } from "./bmp_guard.ts";
import { guardJpeg } from "./jpeg_guard.ts";
import { ACCEPTED_NAMES, pixelLimitOf, type Refusal, refuse } from "./limits.ts";
import { guardPng } from "./png_guard.ts";
import { type ImageHeader, sniffImage } from "./sniff.ts";

// One libvips thread per render worker (the pool has a worker per core) and no operation cache:
// a worker holds no decoded picture after its render.
sharp.concurrency(1);
sharp.cache(false);

/** Upright 8-bit pixels, interleaved: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA. */
export interface DecodedImage {
  ok: true;
  width: number;
  height: number;
  channels: number;
  data: Uint8Array;
}

export interface DecodeOptions {
  /** Scale to the largest size of the picture's aspect ratio inside this box (up or down). */
  box?: { width: number; height: number };
  /** Composite transparency onto white (the panel's paper), leaving no alpha channel. */
  flatten?: boolean;
  /**
   * With `box`: fill the box exactly instead, scaled to cover it and cropped at the centre
   * (a custom push's `fit: cover`, issue 34).
   */
  cover?: boolean;
}

/**
 * Downscaling kernel. Lanczos 3 keeps the most fine detail (small print on a photo) for the
 * tone stage's unsharp mask to work with; measured ~8 ms more than linear per 1600x1200 JPEG.
 */
const KERNEL = "lanczos3";

/** The file as sharp should read it, after its format's checks; or why it is refused. */
async function checked(
  bytes: Uint8Array,
  header: ImageHeader,
): Promise<{ input: SharpInput; raw?: SharpOptions["raw"] } | Refusal> {
  const limit = pixelLimitOf(header.format);
  const tooLarge = (width: number, height: number) =>
    refuse("too_large", `Image of ${width}x${height} is over ${limit} pixels`);
  if (header.width !== undefined && header.height !== undefined) {
    if (header.width * header.height === 0) return refuse("undecodable", "Image has no pixels");
    if (header.width * header.height > limit) return tooLarge(header.width, header.height);
  }
  switch (header.format) {
    case "png": {
      const guard = guardPng(bytes);
      return guard.ok ? { input: guard.png } : guard;
    }
    case "jpeg": {
      const guard = guardJpeg(bytes);
      return guard.ok ? { input: bytes } : guard;
    }
    case "bmp": {
      const guard = guardBmp(bytes);
      if (!guard.ok) return guard;
      const bmp = decodeBmp(bytes);
      // 1-bit BMPs come back as one 0/1 byte per pixel.
      const data = bmp.bitsPerPixel === 1
        ? Uint8Array.from(bmp.data as Uint8Array, (v) => (v ? 255 : 0))
        : bmp.data as Uint8Array;
      const channels = bmp.bitsPerPixel === 1 ? 1 : bmp.channels;
      return {
        input: data,
        raw: { width: bmp.width, height: bmp.height, channels: channels as 1 | 2 | 3 | 4 },
      };
    }
    default: {
      // WebP, GIF, AVIF, TIFF: the size sits behind chunks, boxes or IFDs; libvips reads the
      // header alone here (no pixels) and the limit is checked before anything is decoded.
      const meta = await sharp(bytes, { failOn: "error", page: 0 }).metadata();
      if (!meta.width || !meta.height) return refuse("undecodable", "Image has no pixels");
      if (meta.width * meta.height > limit) return tooLarge(meta.width, meta.height);
      return { input: bytes };
    }
  }
}

/**
 * An accepted picture's upright size from its header alone (no pixels decoded): what the Scene
 * budget is computed from before anything is decoded. Refuses what `decodeImage` would refuse
 * for its format or size.
 */
export async function imageSize(
  bytes: Uint8Array,
): Promise<{ ok: true; width: number; height: number } | Refusal> {
  const header = sniffImage(bytes);
  if (!header || !ACCEPTED_NAMES.has(header.format)) {
    const found = header ? `${header.format.toUpperCase()} images are` : "The file is";
    return refuse("unsupported_format", `${found} not supported; use ${acceptedList()}`);
  }
  const limit = pixelLimitOf(header.format);
  let width = header.width;
  let height = header.height;
  if (header.format !== "bmp") {
    try {
      // JPEG and TIFF may be turned by EXIF; the other formats carry their size in chunks.
      const meta = await sharp(bytes, { failOn: "error", page: 0 }).metadata();
      const upright = meta.autoOrient ?? meta;
      width = upright.width;
      height = upright.height;
    } catch (error) {
      return failure(error, limit);
    }
  }
  if (!width || !height) return refuse("undecodable", "Image has no pixels");
  if (width * height > limit) {
    return refuse("too_large", `Image of ${width}x${height} is over ${limit} pixels`);
  }
  return { ok: true, width, height };
}

/** A sharp error as the render reports it: the pixel limit is 413, anything else 415. */
function failure(error: unknown, limit: number): Refusal {
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(message)) return refuse("too_large", `Image is over ${limit} pixels`);
  return refuse("undecodable", `Image could not be decoded: ${message.split("\n")[0]}`);
}

/**
 * Decodes an accepted image into upright 8-bit pixels: sniffed format, then its checks, then
 * sharp with the same pixel limit (`limitInputPixels`), first page only (an animated GIF shows its
 * first frame; a multi-page TIFF its first page).
 */
export async function decodeImage(
  bytes: Uint8Array,
  options: DecodeOptions = {},
): Promise<DecodedImage | Refusal> {
  const header = sniffImage(bytes);
  if (!header || !ACCEPTED_NAMES.has(header.format)) {
    const found = header ? `${header.format.toUpperCase()} images are` : "The file is";
    return refuse("unsupported_format", `${found} not supported; use ${acceptedList()}`);
  }
  const limit = pixelLimitOf(header.format);
  try {
    const source = await checked(bytes, header);
    if ("ok" in source) return reported(source);
    let pipeline = sharp(source.input, {
      limitInputPixels: limit,
      failOn: "error",
      sequentialRead: true,
      page: 0,
      ...(source.raw ? { raw: source.raw } : {}),
    }).rotate();
    if (options.flatten) pipeline = pipeline.flatten({ background: "#ffffff" });
    if (options.box) {
      pipeline = pipeline.resize({
        ...options.box,
        fit: options.cover ? "cover" : "inside",
        position: "centre",
        kernel: KERNEL,
      });
    }
    const { data, info } = await pipeline.raw({ depth: "uchar" }).toBuffer({
      resolveWithObject: true,
    });
    return {
      ok: true,
      width: info.width,
      height: info.height,
      channels: info.channels,
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    };
  } catch (error) {
    return failure(error, limit);
  }
}

/** A guard's refusal as the render reports it: undecodable files say so first. */
function reported(refusal: Refusal): Refusal {
  if (refusal.code !== "undecodable") return refusal;
  return refuse("undecodable", `Image could not be decoded: ${refusal.message}`);
}

/** "PNG, JPEG, BMP, WebP, GIF, AVIF or TIFF". */
export function acceptedList(): string {
  const names = [...ACCEPTED_NAMES].map((f) => f === "webp" ? "WebP" : f.toUpperCase());
  return `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}
