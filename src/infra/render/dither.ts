/**
 * Error diffusion from 8-bit grey straight into the device formats (issue 12): Floyd–Steinberg
 * (serpentine), Atkinson, or a plain threshold, to 2 levels (`raw2`, 1 bpp) and 4 levels
 * (`raw4`, 2 bpp) at once. Integer arithmetic on typed arrays: errors are kept in 1/16ths
 * (Floyd–Steinberg) or 1/8ths (Atkinson); the error carried along a row lives in locals, the
 * error for the rows below in one Int32Array per row; a pixel's level and its error come from one
 * table load; bits are gathered in a register and stored a byte at a time. Measured on the 2-core
 * box: both formats of an 800x480 frame in ~4 ms, against 22 ms for float Floyd–Steinberg plus
 * separate packing.
 */

/** The error diffusions a push or a monochrome rendition may ask for. */
export const DITHER_KERNELS = ["floyd-steinberg", "atkinson", "threshold"] as const;
export type DitherKernel = typeof DITHER_KERNELS[number];

/**
 * The default for photos. Chosen side by side on the test photos (docs/render.md, "Choosing the
 * defaults"): Atkinson diffuses only 3/4 of the error, so dark areas come out solid black (the
 * circuit board's chips, whose white labels then read cleanly) and a face stays clean, where
 * Floyd–Steinberg sprinkles stray dots into both. Its cost: pale areas (a hazy sky) turn paper
 * white; `floyd-steinberg` keeps them, per push.
 */
export const PHOTO_DITHER: DitherKernel = "atkinson";

/** Both device formats of one frame: 1 bpp and 2 bpp, rows padded to whole bytes. */
export interface Packed {
  /** 1 bpp, MSB = leftmost pixel, 1 = white (SPEC 4.5 raw2; also the PNG's rows). */
  raw2: Uint8Array;
  /** 2 bpp, bits 7-6 = leftmost pixel, 00 black … 11 white (SPEC 4.5 raw4). */
  raw4: Uint8Array;
}

/** Grey plus diffused error stays within ±OFFSET of 0..255 (|error| ≤ 255, weights sum ≤ 1). */
const OFFSET = 512;

/**
 * For `levels` evenly spaced greys (level k is 255·k/(levels-1)), indexed by grey + error +
 * OFFSET: `(error << 8) | level`, where level is the nearest to the clamped value (ties towards
 * white) and error is what that level leaves of it. Error diffused past black or white is so
 * dropped (clamping), and a pixel costs one load and no branch.
 */
function table(levels: number): Int32Array {
  const steps = levels - 1;
  const out = new Int32Array(2 * OFFSET + 256);
  for (let k = 0; k < out.length; k++) {
    const v = Math.min(255, Math.max(0, k - OFFSET));
    const level = Math.floor((v * steps) / 255 + 0.5);
    out[k] = ((v - Math.round((255 * level) / steps)) << 8) | level;
  }
  return out;
}

const TWO = table(2);
const FOUR = table(4);

/**
 * Dithers `grey` (`width` x `height`, one byte per pixel) into both formats. `fixed`, when given,
 * marks pixels that keep their own level (the pure black and white text and rules of a layout):
 * they take no error and pass none on, so a picture's error never speckles a glyph's edge.
 */
export function ditherPacked(
  grey: Uint8Array,
  width: number,
  height: number,
  kernel: DitherKernel,
  fixed?: Uint8Array,
): Packed {
  if (grey.length !== width * height) {
    throw new Error(`Grey buffer of ${grey.length} bytes is not ${width}x${height}`);
  }
  if (fixed && fixed.length !== grey.length) throw new Error("Mask size differs from the frame");
  const out = {
    raw2: new Uint8Array(((width + 7) >> 3) * height),
    raw4: new Uint8Array(((width + 3) >> 2) * height),
  };
  if (kernel === "threshold") threshold(grey, width, height, out);
  else if (kernel === "atkinson") atkinson(grey, width, height, out, fixed);
  else floydSteinberg(grey, width, height, out, fixed);
  return out;
}

/** Nearest level, no diffusion: line art and text. */
function threshold(grey: Uint8Array, width: number, height: number, out: Packed): void {
  const { raw2, raw4 } = out;
  const s2 = (width + 7) >> 3;
  const s4 = (width + 3) >> 2;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let acc2 = 0;
    let acc4 = 0;
    for (let x = 0; x < width; x++) {
      const g = grey[row + x] + OFFSET;
      acc2 = (acc2 << 1) | (TWO[g] & 1);
      acc4 = (acc4 << 2) | (FOUR[g] & 3);
      if ((x & 7) === 7) raw2[y * s2 + (x >> 3)] = acc2, acc2 = 0;
      if ((x & 3) === 3) raw4[y * s4 + (x >> 2)] = acc4, acc4 = 0;
    }
    flushRow(out, y, width, acc2, acc4);
  }
}

/** The last partial byte of a left-to-right row (bits gathered but not yet stored). */
function flushRow(out: Packed, y: number, width: number, acc2: number, acc4: number): void {
  if (width & 7) out.raw2[y * ((width + 7) >> 3) + (width >> 3)] = acc2 << (8 - (width & 7));
  if (width & 3) out.raw4[y * ((width + 3) >> 2) + (width >> 2)] = acc4 << (8 - 2 * (width & 3));
}

/**
 * Floyd–Steinberg, serpentine: even rows left to right, odd rows right to left, so error is not
 * always pushed the same way (no diagonal "worms"). 7/16 ahead, 3/16 below-behind, 5/16 below,
 * 1/16 below-ahead; errors falling off the frame are lost. `below` holds the next row's error:
 * a cell is complete (and stored once) when the pixel after the one above it is done, so the row
 * can be read and rewritten in place.
 */
function floydSteinberg(
  grey: Uint8Array,
  width: number,
  height: number,
  out: Packed,
  fixed?: Uint8Array,
): void {
  const { raw2, raw4 } = out;
  const s2 = (width + 7) >> 3;
  const s4 = (width + 3) >> 2;
  // Cell x+1 holds column x; cells 0 and width+1 catch the error that leaves the frame.
  const b2 = new Int32Array(width + 2);
  const b4 = new Int32Array(width + 2);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    // a: error for the next pixel in this row; p, q: the next row's cells behind and under.
    let a2 = 0, p2 = 0, q2 = 0, a4 = 0, p4 = 0, q4 = 0, acc2 = 0, acc4 = 0;
    if ((y & 1) === 0) {
      for (let x = 0; x < width; x++) {
        const c = x + 1;
        const keep = fixed === undefined || fixed[row + x] === 0;
        const g = grey[row + x] + OFFSET;
        const t2 = TWO[keep ? g + ((a2 + b2[c] + 8) >> 4) : g];
        const t4 = FOUR[keep ? g + ((a4 + b4[c] + 8) >> 4) : g];
        const e2 = t2 >> 8;
        const e4 = t4 >> 8;
        a2 = e2 * 7;
        a4 = e4 * 7;
        b2[c - 1] = p2 + e2 * 3;
        p2 = q2 + e2 * 5;
        q2 = e2;
        b4[c - 1] = p4 + e4 * 3;
        p4 = q4 + e4 * 5;
        q4 = e4;
        acc2 = (acc2 << 1) | (t2 & 1);
        acc4 = (acc4 << 2) | (t4 & 3);
        if ((x & 7) === 7) raw2[y * s2 + (x >> 3)] = acc2, acc2 = 0;
        if ((x & 3) === 3) raw4[y * s4 + (x >> 2)] = acc4, acc4 = 0;
      }
      b2[width] = p2;
      b4[width] = p4;
      flushRow(out, y, width, acc2, acc4);
    } else {
      for (let x = width - 1; x >= 0; x--) {
        const c = x + 1;
        const keep = fixed === undefined || fixed[row + x] === 0;
        const g = grey[row + x] + OFFSET;
        const t2 = TWO[keep ? g + ((a2 + b2[c] + 8) >> 4) : g];
        const t4 = FOUR[keep ? g + ((a4 + b4[c] + 8) >> 4) : g];
        const e2 = t2 >> 8;
        const e4 = t4 >> 8;
        a2 = e2 * 7;
        a4 = e4 * 7;
        b2[c + 1] = p2 + e2 * 3;
        p2 = q2 + e2 * 5;
        q2 = e2;
        b4[c + 1] = p4 + e4 * 3;
        p4 = q4 + e4 * 5;
        q4 = e4;
        acc2 |= (t2 & 1) << (7 - (x & 7));
        acc4 |= (t4 & 3) << (6 - 2 * (x & 3));
        if ((x & 7) === 0) raw2[y * s2 + (x >> 3)] = acc2, acc2 = 0;
        if ((x & 3) === 0) raw4[y * s4 + (x >> 2)] = acc4, acc4 = 0;
      }
      b2[1] = p2;
      b4[1] = p4;
    }
    // The margins took error that left the frame: dropped.
    b2[0] =
      b2[width + 1] =
      b4[0] =
      b4[width + 1] =
        0;
  }
}

/**
 * Atkinson, left to right: 1/8 of the error to each of the next two pixels, the three below and
 * the one two rows down; the other 1/4 is dropped, which keeps contrast (the classic Macintosh
 * and e-ink choice). `near` is the next row (read-modify-write once per cell), `far` the row
 * after it (written once per cell, so it needs no clearing).
 */
function atkinson(
  grey: Uint8Array,
  width: number,
  height: number,
  out: Packed,
  fixed?: Uint8Array,
): void {
  const { raw2, raw4 } = out;
  const s2 = (width + 7) >> 3;
  const s4 = (width + 3) >> 2;
  let here2 = new Int32Array(width + 2), near2 = new Int32Array(width + 2);
  let far2 = new Int32Array(width + 2);
  let here4 = new Int32Array(width + 2), near4 = new Int32Array(width + 2);
  let far4 = new Int32Array(width + 2);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    // a, b: error for the next two pixels of this row; p, q: next-row cells behind and under.
    let a2 = 0, b2 = 0, p2 = 0, q2 = 0, a4 = 0, b4 = 0, p4 = 0, q4 = 0, acc2 = 0, acc4 = 0;
    for (let x = 0; x < width; x++) {
      const c = x + 1;
      const keep = fixed === undefined || fixed[row + x] === 0;
      const g = grey[row + x] + OFFSET;
      const t2 = TWO[keep ? g + ((a2 + here2[c] + 4) >> 3) : g];
      const t4 = FOUR[keep ? g + ((a4 + here4[c] + 4) >> 3) : g];
      const e2 = t2 >> 8;
      const e4 = t4 >> 8;
      a2 = b2 + e2;
      b2 = e2;
      a4 = b4 + e4;
      b4 = e4;
      near2[c - 1] += p2 + e2;
      p2 = q2 + e2;
      q2 = e2;
      near4[c - 1] += p4 + e4;
      p4 = q4 + e4;
      q4 = e4;
      far2[c] = e2;
      far4[c] = e4;
      acc2 = (acc2 << 1) | (t2 & 1);
      acc4 = (acc4 << 2) | (t4 & 3);
      if ((x & 7) === 7) raw2[y * s2 + (x >> 3)] = acc2, acc2 = 0;
      if ((x & 3) === 3) raw4[y * s4 + (x >> 2)] = acc4, acc4 = 0;
    }
    near2[width] += p2;
    near4[width] += p4;
    flushRow(out, y, width, acc2, acc4);
    // Rotate: the next row becomes this one, the far row the next; the old row is rewritten.
    const done2 = here2;
    here2 = near2;
    near2 = far2;
    far2 = done2;
    const done4 = here4;
    here4 = near4;
    near4 = far4;
    far4 = done4;
    here2[0] =
      here2[width + 1] =
      here4[0] =
      here4[width + 1] =
        0;
    near2[0] =
      near2[width + 1] =
      near4[0] =
      near4[width + 1] =
        0;
  }
}
