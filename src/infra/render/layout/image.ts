/**
 * Pictures for layouts (a template's photo, a Scene's image element): decoded through the
 * render's one decode path (sharp, with every format's checks, upright from EXIF), cropped and
 * resized to the exact pixels they will cover, then handed to satori as a PNG data URI.
 * STACK.md: embedding a large photo is the hot spot of a render, so nothing larger than its box
 * is ever embedded.
 */
import { decodeImage } from "../decode.ts";
import { resizeGrey } from "../fit.ts";
import type { RenderFailureCode } from "../limits.ts";
import { tone } from "../tone.ts";
import { encodePng } from "./png_encode.ts";

/** A decoded picture as separate 8-bit planes: grey or R, G, B, then alpha when it has one. */
export interface Picture {
  width: number;
  height: number;
  /** 1 (grey), 2 (grey + alpha), 3 (RGB) or 4 (RGBA) planes of width x height bytes. */
  planes: Uint8Array[];
}

/** How a picture is decoded: grey or colour, and shrunk while decoding into `box` if given. */
export interface PictureOptions {
  grey: boolean;
  /** The largest size needed (never larger than the picture: callers only ever shrink). */
  box?: { width: number; height: number };
}

/** A decode failure, reported as a value (errors lose their fields across threads). */
export interface PictureFailure {
  ok: false;
  code: RenderFailureCode;
  message: string;
}

/**
 * Decodes an accepted image (PNG, JPEG, BMP, WebP, GIF, AVIF, TIFF) into upright planes; `grey`
 * gives luma (BT.601, the push pipeline's grey) instead of colour. Each format is checked before
 * it is decoded (issue 16, decode.ts): a template's photo or a Scene's image is an upload like
 * any other.
 */
export async function decodePicture(
  bytes: Uint8Array,
  options: PictureOptions,
): Promise<{ ok: true; picture: Picture } | PictureFailure> {
  const decoded = await decodeImage(bytes, options.box ? { box: options.box } : {});
  if (!decoded.ok) return decoded;
  const { width, height, channels, data } = decoded;
  return {
    ok: true,
    picture: { width, height, planes: toPlanes(data, width * height, channels, 255, options) },
  };
}

/**
 * A grey picture toned for a 1-bit panel (levels, gamma, unsharp mask: `tone`), at the size it
 * is shown; an alpha plane is kept as it is. Colour pictures are returned unchanged.
 */
export function tonePicture(picture: Picture): Picture {
  if (picture.planes.length > 2) return picture;
  const [grey, ...alpha] = picture.planes;
  return { ...picture, planes: [tone(grey.slice(), picture.width, picture.height), ...alpha] };
}

function toPlanes(
  data: ArrayLike<number>,
  count: number,
  channels: number,
  maxValue: number,
  options: PictureOptions,
): Uint8Array[] {
  const scale = 255 / maxValue;
  const hasAlpha = channels === 2 || channels === 4;
  const colour = channels >= 3 && !options.grey;
  const planes = Array.from(
    { length: (colour ? 3 : 1) + (hasAlpha ? 1 : 0) },
    () => new Uint8Array(count),
  );
  let opaque = true;
  for (let i = 0, p = 0; i < count; i++, p += channels) {
    if (colour) {
      planes[0][i] = data[p] * scale;
      planes[1][i] = data[p + 1] * scale;
      planes[2][i] = data[p + 2] * scale;
    } else {
      const luma = channels >= 3
        ? (299 * data[p] + 587 * data[p + 1] + 114 * data[p + 2]) / 1000
        : data[p];
      planes[0][i] = Math.round(luma * scale);
    }
    if (hasAlpha) {
      const alpha = Math.round(data[p + channels - 1] * scale);
      planes[planes.length - 1][i] = alpha;
      if (alpha !== 255) opaque = false;
    }
  }
  // A fully opaque alpha plane is dropped: smaller PNGs, and nothing to composite.
  return hasAlpha && opaque ? planes.slice(0, -1) : planes;
}

/** Decoded pictures kept by content, newest last; bounded by the bytes of their planes. */
const cache = new Map<string, Picture>();
let cachedBytes = 0;
/** About ten 1200x800 colour photos; a worker holds this much at most. */
const CACHE_BYTES = 32 * 1024 * 1024;

const planeBytes = (picture: Picture) => picture.width * picture.height * picture.planes.length;

/**
 * `decodePicture` with a small per-worker cache keyed by the bytes' SHA-256: the renditions of
 * one Scene at several sizes, or a preview followed by its push, decode the photo once. Keyed by
 * content, so a hit can only ever return the pixels of the very same file.
 */
export async function loadPicture(
  bytes: Uint8Array,
  options: PictureOptions,
): Promise<{ ok: true; picture: Picture } | PictureFailure> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  const size = options.box ? `${options.box.width}x${options.box.height}` : "full";
  const key = `${options.grey ? "grey" : "colour"}:${size}:${digest.toHex()}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return { ok: true, picture: hit };
  }
  const result = await decodePicture(bytes, options);
  if (!result.ok) return result;
  const bytesHeld = planeBytes(result.picture);
  if (bytesHeld <= CACHE_BYTES) {
    cache.set(key, result.picture);
    cachedBytes += bytesHeld;
    for (const [oldest, picture] of cache) {
      if (cachedBytes <= CACHE_BYTES) break;
      cache.delete(oldest);
      cachedBytes -= planeBytes(picture);
    }
  }
  return result;
}

/** A source rectangle in picture pixels (fractions allowed; rounded outwards to whole pixels). */
export interface Crop {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Averages 2x2 blocks (an odd last row or column is dropped): exact area sampling at half size. */
function halve(plane: Uint8Array, width: number, height: number): Uint8Array {
  const w = width >> 1;
  const h = height >> 1;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const top = 2 * y * width;
    const bottom = top + width;
    for (let x = 0, i = y * w; x < w; x++, i++) {
      const a = top + 2 * x;
      const b = bottom + 2 * x;
      out[i] = (plane[a] + plane[a + 1] + plane[b] + plane[b + 1] + 2) >> 2;
    }
  }
  return out;
}

/**
 * Crops each plane to `crop` and resamples it to `width` x `height`. A large reduction first
 * halves in 2x2 blocks (integer arithmetic, ~10x cheaper per source pixel than the general
 * resampler), then resamples the rest with `resizeGrey`; area averaging either way.
 */
export function cropAndResize(
  picture: Picture,
  crop: Crop,
  width: number,
  height: number,
): Picture {
  const x0 = Math.max(0, Math.floor(crop.x));
  const y0 = Math.max(0, Math.floor(crop.y));
  const x1 = Math.min(picture.width, Math.max(x0 + 1, Math.ceil(crop.x + crop.width)));
  const y1 = Math.min(picture.height, Math.max(y0 + 1, Math.ceil(crop.y + crop.height)));
  const planes = picture.planes.map((plane) => {
    let cw = x1 - x0;
    let ch = y1 - y0;
    let source = plane;
    if (cw !== picture.width || ch !== picture.height) {
      source = new Uint8Array(cw * ch);
      for (let y = 0; y < ch; y++) {
        const from = (y0 + y) * picture.width + x0;
        source.set(plane.subarray(from, from + cw), y * cw);
      }
    }
    while (cw >= 2 * width && ch >= 2 * height) {
      source = halve(source, cw, ch);
      cw >>= 1;
      ch >>= 1;
    }
    return resizeGrey(source, cw, ch, width, height);
  });
  return { width, height, planes };
}

/** The picture as a PNG data URI, the form satori embeds. */
export function pictureDataUri(picture: Picture): string {
  const { width, height, planes } = picture;
  const channels = planes.length as 1 | 2 | 3 | 4;
  const count = width * height;
  const data = new Uint8Array(count * channels);
  for (let c = 0; c < channels; c++) {
    const plane = planes[c];
    for (let i = 0, p = c; i < count; i++, p += channels) data[p] = plane[i];
  }
  const png = encodePng({ width, height, channels, depth: 8, data, level: 1 });
  return `data:image/png;base64,${png.toBase64()}`;
}
