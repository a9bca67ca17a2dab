/**
 * A JPEG checked before jpeg-js sees it (issue 16). JPEG data cannot inflate past its frame,
 * but jpeg-js allocates the whole frame up front and reads zeros past the end of the file, so
 * a 150-byte file whose frame says 4000x4000 cost 230 MB; and every scan walks the whole frame
 * again. The marker walk here finds the one frame, counts the scans and measures the
 * entropy-coded data, and refuses a frame its data cannot possibly cover.
 */
import {
  JPEG_DECODER_MEMORY_MB,
  MAX_DECODED_BYTES,
  MAX_JPEG_SCANS,
  MAX_SOURCE_PIXELS,
  type Refusal,
  refuse,
} from "./limits.ts";
import { exifOrientation } from "./exif.ts";

/** The frame as jpeg-js will lay it out. */
export interface JpegFrame {
  width: number;
  height: number;
  components: Array<{ id: number; h: number; v: number }>;
}

/** What the walk found: the frame, the EXIF orientation (1 when absent). */
export interface JpegInfo {
  ok: true;
  frame: JpegFrame;
  orientation: number;
}

/**
 * Markers, segments and fill bytes between segments (scan data not counted). An encoder writes
 * tens of them (a progressive JPEG: its 100 scans' tables and headers at most); a 10 MB file of
 * empty segments or fill bytes would take millions of steps (issue 25: the walk runs at confirm).
 */
const MAX_JPEG_MARKERS = 10_000;

/** SOF0 baseline, SOF1 extended, SOF2 progressive: the Huffman-coded frames jpeg-js decodes. */
const DECODED_FRAMES = new Set([0xc0, 0xc1, 0xc2]);

function isFrameMarker(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 &&
    marker !== 0xcc;
}

/**
 * Blocks of 8x8 samples the frame holds, per component, as jpeg-js counts them. Every block is
 * coded with at least one bit in some scan (its DC coefficient), so fewer bits of scan data
 * than blocks means the decoder would invent the rest.
 */
function blocksOf(frame: JpegFrame): { coded: number; allocated: number; samples: number } {
  const maxH = Math.max(...frame.components.map((c) => c.h));
  const maxV = Math.max(...frame.components.map((c) => c.v));
  const mcusPerLine = Math.ceil(frame.width / 8 / maxH);
  const mcusPerColumn = Math.ceil(frame.height / 8 / maxV);
  let coded = 0;
  let allocated = 0;
  let samples = 0;
  for (const c of frame.components) {
    const perLine = Math.ceil((Math.ceil(frame.width / 8) * c.h) / maxH);
    const perColumn = Math.ceil((Math.ceil(frame.height / 8) * c.v) / maxV);
    coded += perLine * perColumn;
    allocated += mcusPerLine * c.h * mcusPerColumn * c.v;
    samples += perLine * 8 * perColumn * 8;
  }
  return { coded, allocated, samples };
}

/**
 * Skips entropy-coded data from `at` to the next marker; returns that marker's offset. A plain
 * loop: a scan of stuffed bytes (`FF 00` repeated) would cost one `indexOf` call per two bytes,
 * 200 ms for 10 MB, where this takes a few milliseconds (issue 25: it also runs at confirm).
 */
function skipScanData(bytes: Uint8Array, at: number): number {
  const last = bytes.length - 1;
  for (let i = at; i < last; i++) {
    if (bytes[i] !== 0xff) continue;
    const next = bytes[i + 1];
    // 0xFF00 is a stuffed data byte, 0xFFD0-D7 restart markers, 0xFFFF fill: still scan data.
    if (next === 0x00 || (next >= 0xd0 && next <= 0xd7) || next === 0xff) continue;
    return i;
  }
  return bytes.length;
}

/** Whether the APP1 payload at `at` starts with "Exif". */
function isExif(bytes: Uint8Array, at: number): boolean {
  return bytes[at] === 0x45 && bytes[at + 1] === 0x78 && bytes[at + 2] === 0x69 &&
    bytes[at + 3] === 0x66;
}

function readFrame(segment: Uint8Array): JpegFrame | string {
  if (segment.length < 6) return "JPEG frame header is truncated";
  if (segment[0] !== 8) return `JPEG sample precision ${segment[0]} is not supported`;
  const height = (segment[1] << 8) | segment[2];
  const width = (segment[3] << 8) | segment[4];
  const count = segment[5];
  if (width === 0 || height === 0) return "JPEG frame has no size";
  if (count < 1 || count > 4 || segment.length !== 6 + 3 * count) {
    return "JPEG frame components are not valid";
  }
  const components = [];
  for (let i = 0; i < count; i++) {
    const h = segment[7 + 3 * i] >> 4;
    const v = segment[7 + 3 * i] & 15;
    if (h < 1 || h > 4 || v < 1 || v > 4) return "JPEG sampling factors are not valid";
    components.push({ id: segment[6 + 3 * i], h, v });
  }
  return { width, height, components };
}

/** Walks a JPEG's markers; the frame to decode, or why it is refused. */
export function guardJpeg(bytes: Uint8Array): JpegInfo | Refusal {
  let frame: JpegFrame | undefined;
  let orientation = 1;
  let scans = 0;
  let scanBytes = 0;
  let ended = false;
  let exifRead = false;
  let at = 2;
  for (let steps = 0; at < bytes.length; steps++) {
    if (steps === MAX_JPEG_MARKERS) {
      return refuse("undecodable", `JPEG has more than ${MAX_JPEG_MARKERS} markers`);
    }
    if (bytes[at] !== 0xff) return refuse("undecodable", "JPEG marker expected");
    const marker = bytes[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0xd9) {
      ended = true;
      break;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2;
      continue;
    }
    if (at + 4 > bytes.length) break;
    const length = (bytes[at + 2] << 8) | bytes[at + 3];
    const end = at + 2 + length;
    if (length < 2 || end > bytes.length) {
      return refuse("undecodable", "JPEG segment runs past the end of the file");
    }
    // No view per segment: a file of 2.6 million empty segments is walked in milliseconds.
    if (isFrameMarker(marker)) {
      if (frame) return refuse("undecodable", "JPEG has more than one frame");
      if (!DECODED_FRAMES.has(marker)) {
        return refuse("undecodable", "Lossless and arithmetic-coded JPEGs are not supported");
      }
      const read = readFrame(bytes.subarray(at + 4, end));
      if (typeof read === "string") return refuse("undecodable", read);
      frame = read;
    } else if (marker === 0xe1 && !exifRead && isExif(bytes, at + 4)) {
      // The first Exif segment (an XMP one is APP1 too) has the orientation.
      exifRead = true;
      orientation = exifOrientation(bytes.subarray(at + 4, end));
    } else if (marker === 0xda) {
      if (!frame) return refuse("undecodable", "JPEG scan comes before its frame");
      if (++scans > MAX_JPEG_SCANS) {
        return refuse("too_large", `JPEG has more than ${MAX_JPEG_SCANS} scans`);
      }
      const next = skipScanData(bytes, end);
      scanBytes += next - end;
      at = next;
      continue;
    }
    at = end;
  }
  if (!frame) return refuse("undecodable", "Image header has no size");
  const { width, height } = frame;
  if (width * height > MAX_SOURCE_PIXELS) {
    return refuse("too_large", `Image of ${width}x${height} is over ${MAX_SOURCE_PIXELS} pixels`);
  }
  const blocks = blocksOf(frame);
  if (scanBytes * 8 < blocks.coded) {
    return refuse(
      "undecodable",
      `JPEG scan data (${scanBytes} bytes) cannot cover its ${width}x${height} frame`,
    );
  }
  // jpeg-js's accounting: Int32Array(64) per block, component rows, then RGB output.
  const memory = blocks.allocated * 256 + blocks.samples + width * height * 3;
  if (memory > JPEG_DECODER_MEMORY_MB * 1024 * 1024 || width * height * 3 > MAX_DECODED_BYTES) {
    return refuse("too_large", `JPEG of ${width}x${height} needs more memory than allowed`);
  }
  // libjpeg-turbo (libvips) refuses a file that ends before its end-of-image marker ("premature
  // end of JPEG image"), even one missing only those two bytes: a truncated upload.
  if (!ended) return refuse("undecodable", "JPEG is truncated: it has no end-of-image marker");
  return { ok: true, frame, orientation };
}
