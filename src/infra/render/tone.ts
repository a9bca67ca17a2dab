/**
 * The tone stage between grey conversion and dithering (issue 12), tuned for a 1-bit e-ink
 * panel: a robust levels stretch (percentile black and white points, so a dull photo uses the
 * panel's whole range), a gamma that lifts mid-tones away from the 50% dot texture, and an unsharp
 * mask so edges and small print survive the dither. Integer arithmetic on typed arrays: one
 * 256-entry lookup table for levels and gamma, then a separable box blur with running sums.
 */

/** How a picture is toned; `PHOTO_TONE` is the default (docs/render.md, "Choosing the defaults"). */
export interface ToneOptions {
  /** Share of pixels allowed to clip to black, 0..0.2. */
  blackClip: number;
  /** Share of pixels allowed to clip to white, 0..0.2. */
  whiteClip: number;
  /**
   * The stretch never maps fewer grey values than this onto the full range, so a nearly flat
   * picture (fog, a blank wall) is not blown up into noise.
   */
  minRange: number;
  /** Output = input^(1/gamma) on 0..1: above 1 lifts mid-tones. */
  gamma: number;
  /** Unsharp mask strength (1 = add the full difference from the blurred copy once). */
  sharpen: number;
  /** Box radius of the unsharp mask's blur in pixels (0 = no sharpening). */
  radius: number;
}

/**
 * Chosen on the committed test photos at 800x480 (docs/render.md, "Choosing the defaults"): clip
 * 0.5% at each end (a few specular highlights or deep shadows must not hold the whole range
 * hostage; 1% already blew out the portrait's forehead), gamma 1.1 (a mid grey of 128 becomes
 * 135: slightly fewer black dots in mid-tones; 1.25 washed the portrait's face out), unsharp mask
 * 0.8 over a 1-pixel box (the circuit board's printed labels stay legible at 1 bit).
 */
export const PHOTO_TONE: Readonly<ToneOptions> = Object.freeze({
  blackClip: 0.005,
  whiteClip: 0.005,
  minRange: 64,
  gamma: 1.1,
  sharpen: 0.8,
  radius: 1,
});

/** The grey values at which the darkest and brightest `clip` shares of pixels start. */
export function levelsOf(
  grey: Uint8Array,
  options: Pick<ToneOptions, "blackClip" | "whiteClip" | "minRange">,
): { black: number; white: number } {
  const histogram = new Uint32Array(256);
  for (let i = 0; i < grey.length; i++) histogram[grey[i]]++;
  const darkest = Math.floor(grey.length * options.blackClip);
  const brightest = Math.floor(grey.length * options.whiteClip);
  let black = 0;
  for (let seen = 0; black < 255; black++) {
    seen += histogram[black];
    if (seen > darkest) break;
  }
  let white = 255;
  for (let seen = 0; white > 0; white--) {
    seen += histogram[white];
    if (seen > brightest) break;
  }
  // Too narrow a range: widen it around its middle, within 0..255.
  if (white - black < options.minRange) {
    const middle = (black + white) / 2;
    black = Math.round(
      Math.max(0, Math.min(255 - options.minRange, middle - options.minRange / 2)),
    );
    white = black + options.minRange;
  }
  return { black, white };
}

/** The lookup table of levels then gamma: grey → toned grey. */
export function toneCurve(black: number, white: number, gamma: number): Uint8Array {
  const curve = new Uint8Array(256);
  const span = Math.max(1, white - black);
  for (let g = 0; g < 256; g++) {
    const t = Math.min(1, Math.max(0, (g - black) / span));
    curve[g] = Math.round(255 * Math.pow(t, 1 / gamma));
  }
  return curve;
}

/**
 * Box blur of radius `r` (edges repeat): running sums along each row, then running sums of those
 * down the columns, kept per column and advanced a row at a time (cache friendly). Division by
 * the box area is a multiply and a shift.
 */
export function boxBlur(grey: Uint8Array, width: number, height: number, r: number): Uint8Array {
  // Row sums of at most 17 samples fit 16 bits.
  const across = new Uint16Array(grey.length);
  const at = (row: number, x: number) => grey[row + (x < 0 ? 0 : x >= width ? width - 1 : x)];
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let sum = 0;
    for (let k = -r; k <= r; k++) sum += at(row, k);
    // The edges (where the box runs off the row) apart, so the middle needs no index checks.
    const inner = Math.max(r, Math.min(width - r - 1, width));
    let x = 0;
    for (; x < r && x < width; x++) {
      across[row + x] = sum;
      sum += at(row, x + r + 1) - at(row, x - r);
    }
    for (; x < inner; x++) {
      across[row + x] = sum;
      sum += grey[row + x + r + 1] - grey[row + x - r];
    }
    for (; x < width; x++) {
      across[row + x] = sum;
      sum += at(row, x + r + 1) - at(row, x - r);
    }
  }
  const size = 2 * r + 1;
  const reciprocal = Math.round(65536 / (size * size));
  const columns = new Int32Array(width);
  const lastRow = height - 1;
  for (let x = 0; x < width; x++) columns[x] = across[x] * (r + 1);
  for (let k = 1; k <= r; k++) {
    const from = Math.min(k, lastRow) * width;
    for (let x = 0; x < width; x++) columns[x] += across[from + x];
  }
  const out = new Uint8Array(grey.length);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const enter = Math.min(y + r + 1, lastRow) * width;
    const leave = Math.max(y - r, 0) * width;
    for (let x = 0; x < width; x++) {
      out[row + x] = (columns[x] * reciprocal + 0x8000) >>> 16;
      columns[x] += across[enter + x] - across[leave + x];
    }
  }
  return out;
}

/** Tones a grey picture in place and returns it (levels, gamma, unsharp mask). */
export function tone(
  grey: Uint8Array,
  width: number,
  height: number,
  options: ToneOptions = PHOTO_TONE,
): Uint8Array {
  if (grey.length !== width * height) {
    throw new Error(`Grey buffer of ${grey.length} bytes is not ${width}x${height}`);
  }
  if (grey.length === 0) return grey;
  const { black, white } = levelsOf(grey, options);
  const curve = toneCurve(black, white, options.gamma);
  for (let i = 0; i < grey.length; i++) grey[i] = curve[grey[i]];
  const r = Math.min(8, Math.max(0, Math.round(options.radius)));
  if (r === 0 || options.sharpen <= 0) return grey;
  const blurred = boxBlur(grey, width, height, r);
  // out = in + amount·(in − blurred), amount in 1/256ths, clamped with a table.
  const amount = Math.round(Math.min(1.5, options.sharpen) * 256);
  const clamp = new Uint8Array(1024);
  for (let k = 0; k < 1024; k++) clamp[k] = Math.min(255, Math.max(0, k - 384));
  for (let i = 0; i < grey.length; i++) {
    const g = grey[i];
    grey[i] = clamp[g + (((g - blurred[i]) * amount) >> 8) + 384];
  }
  return grey;
}
