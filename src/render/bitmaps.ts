/**
 * The whole custom-image render (SPEC 4.6 render stage) as one synchronous function: decode,
 * fit to 800x480 on white, grey, dither, pack, PNG. The Piscina worker runs it off the request
 * loop; it reports failures as values because custom errors do not cross the thread boundary.
 */
import { decodeSource } from "./decode.ts";
import { ditherFloydSteinberg } from "./dither.ts";
import { fitOnWhite } from "./fit.ts";
import { toGrey } from "./grey.ts";
import { orient } from "./orient.ts";
import { pack1bpp, pack2bpp } from "./pack.ts";
import { encodePng1Bit } from "./png.ts";
import { MAX_SOURCE_PIXELS, type Refusal } from "./limits.ts";
import { sniffImage } from "./sniff.ts";
import { FRAME_HEIGHT, FRAME_WIDTH, type PushBitmaps } from "./types.ts";

export { MAX_SOURCE_PIXELS, type RenderFailureCode } from "./limits.ts";

export type RenderResult = { ok: true; bitmaps: PushBitmaps } | Refusal;

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
  const area = header.width * header.height;
  if (area === 0) return { ok: false, code: "undecodable", message: "Image has no pixels" };
  if (area > MAX_SOURCE_PIXELS) {
    return {
      ok: false,
      code: "too_large",
      message: `Image of ${header.width}x${header.height} is over ${MAX_SOURCE_PIXELS} pixels`,
    };
  }
  // Each format's guard checks what decoding will cost before its decoder allocates (decode.ts).
  const decoded = decodeSource(source, header);
  if (!decoded.ok) return decoded;
  const { pixels } = decoded;
  const stored = { width: pixels.width, height: pixels.height, data: toGrey(pixels) };
  // Phones store photos as the sensor saw them and put the turn in EXIF (TIFF tag 274).
  const { data: grey, width, height } = orient(stored, decoded.orientation);
  return {
    ok: true,
    bitmaps: bitmapsFromFrame(fitOnWhite(grey, width, height, FRAME_WIDTH, FRAME_HEIGHT)),
  };
}
