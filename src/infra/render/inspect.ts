/**
 * A picture prepared for the summary stage (SPEC 4.6: "an AI vision model for image
 * attachments"): decoded through the same guards and decoder as every render (`decodeImage`:
 * turned upright and shrunk while it is decoded), measured
 * (size, brightness, contrast, where the detail is, whether it looks like a page of text, a
 * photograph or a flat graphic) and downscaled into a grey JPEG small enough for the Messages
 * API's image limits. The offline model describes the picture from the measurements alone.
 * Runs in the render pool (`inspect` task), never on the request loop.
 */
import sharp from "sharp";
import { decodeImage } from "./decode.ts";
import { containRect, resizeGrey } from "./fit.ts";
import { toGrey } from "./grey.ts";
import { PREVIEW_MAX_SIDE, type Refusal } from "./limits.ts";
import { sniffImage } from "./sniff.ts";

/** What can be measured of a picture, upright. Percentages are 0-100. */
export interface ImageFacts {
  width: number;
  height: number;
  orientation: "landscape" | "portrait" | "square";
  /** Mean brightness. */
  brightness: number;
  /** Standard deviation of brightness, as a share of the full range. */
  contrast: number;
  /** Pixels near black / near white. */
  darkShare: number;
  lightShare: number;
  /** Pixels on a strong edge (text, outlines, texture). */
  edgeDensity: number;
  /** The dominant layout, by those numbers. */
  layout: "document" | "photo" | "graphic";
  /** Where most of the detail (edges) sits: a ninth of the frame, or `evenly`. */
  detail: string;
}

export type InspectResult =
  | { ok: true; facts: ImageFacts; preview: Uint8Array }
  | Refusal;

export { PREVIEW_MAX_SIDE };
/** Side of the image the measurements run on. */
const ANALYSIS_SIDE = 256;

const CELLS = [
  "top left",
  "top",
  "top right",
  "left",
  "centre",
  "right",
  "bottom left",
  "bottom",
  "bottom right",
];

const pct = (value: number) => Math.round(value * 100);

/** Measures an upright grey image. Exported for the unit tests. */
export function measure(grey: Uint8Array, width: number, height: number): ImageFacts {
  const fit = containRect(width, height, ANALYSIS_SIDE, ANALYSIS_SIDE);
  const w = Math.max(1, Math.min(width, fit.width));
  const h = Math.max(1, Math.min(height, fit.height));
  const small = resizeGrey(grey, width, height, w, h);
  const count = w * h;
  let sum = 0;
  let sumSq = 0;
  let dark = 0;
  let light = 0;
  const histogram = new Uint32Array(256);
  for (const v of small) {
    sum += v;
    sumSq += v * v;
    if (v < 64) dark++;
    if (v > 192) light++;
    histogram[v]++;
  }
  const mean = sum / count;
  const deviation = Math.sqrt(Math.max(0, sumSq / count - mean * mean));
  const cellEdges = new Float64Array(9);
  let edges = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const at = y * w + x;
      const g = Math.abs(small[at + 1] - small[at - 1]) + Math.abs(small[at + w] - small[at - w]);
      if (g > 64) {
        edges++;
        cellEdges[
          Math.min(2, Math.floor((3 * y) / h)) * 3 + Math.min(2, Math.floor((3 * x) / w))
        ]++;
      }
    }
  }
  const inner = Math.max(1, (w - 2) * (h - 2));
  const topValues = [...histogram].sort((a, b) => b - a).slice(0, 4).reduce((a, b) => a + b, 0);
  const edgeDensity = edges / inner;
  const lightShare = light / count;
  const darkShare = dark / count;
  // Paper first: mostly light, a little dark ink in many strokes (a scan may be flat too).
  const layout = mean > 150 && lightShare > 0.45 && darkShare > 0.005 && darkShare < 0.35 &&
      edgeDensity > 0.03
    ? "document"
    : topValues / count > 0.6
    ? "graphic"
    : "photo";
  const strongest = cellEdges.indexOf(Math.max(...cellEdges));
  const detail = edges === 0 || cellEdges[strongest] < (edges / 9) * 1.6
    ? "evenly"
    : CELLS[strongest];
  const ratio = width / height;
  return {
    width,
    height,
    orientation: ratio > 1.05 ? "landscape" : ratio < 0.95 ? "portrait" : "square",
    brightness: pct(mean / 255),
    contrast: pct(deviation / 127.5),
    darkShare: pct(darkShare),
    lightShare: pct(lightShare),
    edgeDensity: pct(edgeDensity),
    layout,
    detail,
  };
}

/** A grey image as a JPEG (libvips, in the worker). */
async function greyJpeg(grey: Uint8Array, width: number, height: number): Promise<Uint8Array> {
  const jpeg = await sharp(grey, { raw: { width, height, channels: 1 } }).jpeg({ quality: 80 })
    .toBuffer();
  return new Uint8Array(jpeg.buffer, jpeg.byteOffset, jpeg.byteLength);
}

/**
 * Decodes, measures and downsizes a picture (any format the renderer accepts). The size in the
 * facts is the upright picture's own; the measurements run on the downsized preview.
 */
export async function inspectImage(
  source: Uint8Array,
  maxSide = PREVIEW_MAX_SIDE,
): Promise<InspectResult> {
  const header = sniffImage(source);
  // Shrunk while decoded when larger than the preview; a small picture is sent as it is (the
  // decoder's box would scale it up too).
  const large = !header?.width || !header?.height ||
    Math.max(header.width, header.height) > maxSide;
  const decoded = await decodeImage(source, {
    ...(large ? { box: { width: maxSide, height: maxSide } } : {}),
    flatten: true,
  });
  if (!decoded.ok) return decoded;
  const grey = toGrey(decoded);
  // The header's size, turned like the decoded picture was (EXIF orientation).
  let width = header?.width ?? decoded.width;
  let height = header?.height ?? decoded.height;
  if ((width > height) !== (decoded.width > decoded.height) && width !== height) {
    [width, height] = [height, width];
  }
  const facts = { ...measure(grey, decoded.width, decoded.height), width, height };
  const ratio = width / height;
  facts.orientation = ratio > 1.05 ? "landscape" : ratio < 0.95 ? "portrait" : "square";
  return { ok: true, facts, preview: await greyJpeg(grey, decoded.width, decoded.height) };
}
