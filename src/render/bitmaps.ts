/**
 * The whole custom-image render (SPEC 4.6 render stage) as one synchronous function: decode,
 * fit to 800x480 on white, grey, dither, pack, PNG. The Piscina worker runs it off the request
 * loop; it reports failures as values because custom errors do not cross the thread boundary.
 */
import { decode } from "image-js";
import { ditherFloydSteinberg } from "./dither.ts";
import { fitOnWhite } from "./fit.ts";
import { toGrey } from "./grey.ts";
import { orient } from "./orient.ts";
import { pack1bpp, pack2bpp } from "./pack.ts";
import { encodePng1Bit } from "./png.ts";
import { sniffImage } from "./sniff.ts";
import { FRAME_HEIGHT, FRAME_WIDTH, type PushBitmaps } from "./types.ts";

/** Larger sources are refused before decoding: a 10 MB PNG can inflate to gigabytes. */
export const MAX_SOURCE_PIXELS = 40_000_000;

/** Why an image cannot be rendered; retrying never helps with any of these. */
export type RenderFailureCode = "unsupported_format" | "undecodable" | "too_large";

export type RenderResult =
  | { ok: true; bitmaps: PushBitmaps }
  | { ok: false; code: RenderFailureCode; message: string };

const ORIENTATION_TAG = 274;

/**
 * Formats rendered: those image-js 1.7 decodes (no WebP, no GIF) whose size the header tells
 * before decoding. TIFF is refused: its size sits behind IFD offsets and compressed TIFF inflates
 * without bound, and nobody sends TIFF to a picture frame.
 */
const DECODABLE = new Set(["png", "jpeg", "bmp"]);

/** Dithers and packs an 800x480 grey frame into the three push formats. */
export function bitmapsFromFrame(frame: Uint8Array): PushBitmaps {
  const mono = ditherFloydSteinberg(frame, FRAME_WIDTH, FRAME_HEIGHT, 2);
  const raw2 = pack1bpp(mono, FRAME_WIDTH, FRAME_HEIGHT);
  const raw4 = pack2bpp(
    ditherFloydSteinberg(frame, FRAME_WIDTH, FRAME_HEIGHT, 4),
    FRAME_WIDTH,
    FRAME_HEIGHT,
  );
  return { png: encodePng1Bit(raw2, FRAME_WIDTH, FRAME_HEIGHT), raw2, raw4 };
}

/** Renders an uploaded image into the three push formats. */
export function renderImageBitmaps(source: Uint8Array): RenderResult {
  const header = sniffImage(source);
  if (!header || !DECODABLE.has(header.format)) {
    const found = header ? `${header.format.toUpperCase()} images are` : "The file is";
    return {
      ok: false,
      code: "unsupported_format",
      message: `${found} not supported; use PNG, JPEG or BMP`,
    };
  }
  if (header.width === undefined || header.height === undefined) {
    return { ok: false, code: "undecodable", message: "Image header has no size" };
  }
  const pixels = header.width * header.height;
  if (pixels === 0) return { ok: false, code: "undecodable", message: "Image has no pixels" };
  if (pixels > MAX_SOURCE_PIXELS) {
    return {
      ok: false,
      code: "too_large",
      message: `Image of ${header.width}x${header.height} is over ${MAX_SOURCE_PIXELS} pixels`,
    };
  }
  let grey: Uint8Array;
  let width: number;
  let height: number;
  try {
    const image = decode(source);
    if (image.width * image.height > MAX_SOURCE_PIXELS) {
      return { ok: false, code: "too_large", message: "Image is over the pixel limit" };
    }
    const raw = image.getRawImage();
    const stored = {
      width: raw.width,
      height: raw.height,
      data: toGrey({ ...raw, maxValue: image.maxValue }),
    };
    // Phones store photos as the sensor saw them and put the turn in EXIF (TIFF tag 274).
    const orientation = Number(image.meta?.tiff.fields.get(ORIENTATION_TAG) ?? 1);
    ({ data: grey, width, height } = orient(stored, orientation));
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, code: "undecodable", message: `Image could not be decoded: ${detail}` };
  }
  return {
    ok: true,
    bitmaps: bitmapsFromFrame(fitOnWhite(grey, width, height, FRAME_WIDTH, FRAME_HEIGHT)),
  };
}
