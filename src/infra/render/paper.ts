/**
 * Photos of paper (issue 26): a page, a receipt, a whiteboard or a handwritten note photographed
 * under uneven light. `paperLight` estimates the paper's brightness across the picture (a high
 * percentile per block, ink blocks filled from their neighbours, interpolated); `isDocument`
 * decides from it whether the picture is paper with thin marks on it; `flattenPaper` divides the
 * light out, so the paper is white everywhere, and stretches the ink to black, ready for a
 * threshold. Typed-array arithmetic on the fitted grey picture (at most 800x480).
 */

/** How an uploaded picture is treated: decided from the picture (`auto`) or by the upload. */
export const IMAGE_MODES = ["auto", "photo", "document"] as const;
export type ImageMode = typeof IMAGE_MODES[number];

/** Side of the square blocks the paper's light is sampled in (pixels of the fitted picture). */
const BLOCK = 16;

/** Paper has at most this share of blocks darker than 30% of its brightest. */
const MAX_DARK_BLOCKS = 0.05;

/** The paper's light, one value per pixel, and the figures the classifier reads from it. */
export interface PaperLight {
  /** Estimated paper brightness at each pixel, 1..255. */
  light: Uint8Array;
  /** Blocks along x and y, and each block's estimate after spreading and smoothing. */
  columns: number;
  rows: number;
  blocks: Uint8Array;
}

/** The `p`-th percentile (0..1) of a block of `grey`. */
function blockPercentile(
  grey: Uint8Array,
  width: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  p: number,
  histogram: Uint32Array,
): number {
  histogram.fill(0);
  for (let y = y0; y < y1; y++) {
    const row = y * width;
    for (let x = x0; x < x1; x++) histogram[grey[row + x]]++;
  }
  const target = Math.floor((x1 - x0) * (y1 - y0) * (1 - p));
  let seen = 0;
  let g = 255;
  for (; g > 0; g--) {
    seen += histogram[g];
    if (seen > target) break;
  }
  return g;
}

/**
 * The paper's brightness: per 16-pixel block the 90th percentile (ink covers less than a tenth of
 * most blocks; a bright speck of noise does not count); a block under 85% of its brightest
 * neighbour is taken for ink and given that neighbour's value (a lamp's gradient changes far less
 * over 16 pixels); then a 3x3 mean (no seams), interpolated bilinearly back to pixels.
 */
export function paperLight(grey: Uint8Array, width: number, height: number): PaperLight {
  return lightOf(paperBlocks(grey, width, height), width, height);
}

/** The per-block estimate of `paperLight` (before interpolation). */
function paperBlocks(
  grey: Uint8Array,
  width: number,
  height: number,
): Omit<PaperLight, "light"> {
  const columns = Math.max(1, Math.ceil(width / BLOCK));
  const rows = Math.max(1, Math.ceil(height / BLOCK));
  const raw = new Uint8Array(columns * rows);
  const histogram = new Uint32Array(256);
  for (let by = 0; by < rows; by++) {
    for (let bx = 0; bx < columns; bx++) {
      const x0 = bx * BLOCK;
      const y0 = by * BLOCK;
      raw[by * columns + bx] = blockPercentile(
        grey,
        width,
        x0,
        y0,
        Math.min(width, x0 + BLOCK),
        Math.min(height, y0 + BLOCK),
        0.9,
        histogram,
      );
    }
  }
  // A block much darker than most of its neighbours is ink (a bold heading, a dense line), not
  // shade (a shadow's edge leaves about half of them as dark): it takes their median. Twice, so
  // an ink area two blocks wide is filled from its edges.
  let blocks: Uint8Array = raw;
  for (let pass = 0; pass < 2; pass++) blocks = fillDips(blocks, columns, rows);
  return { columns, rows, blocks };
}

/** The blocks' estimate interpolated to every pixel. */
function lightOf(
  estimate: Omit<PaperLight, "light">,
  width: number,
  height: number,
): PaperLight {
  const { columns, rows, blocks } = estimate;
  // Bilinear, block centres at (b + 0.5)·BLOCK; edges hold the outermost centre's value. Each
  // row first interpolates its two block rows (one value per block), then each pixel along it.
  const light = new Uint8Array(width * height);
  const fx = new Float32Array(width);
  const ix = new Int32Array(width);
  const jx = new Int32Array(width);
  for (let x = 0; x < width; x++) {
    const u = Math.min(columns - 1, Math.max(0, (x + 0.5) / BLOCK - 0.5));
    ix[x] = Math.max(0, Math.min(columns - 2, Math.floor(u)));
    jx[x] = Math.min(columns - 1, ix[x] + 1);
    fx[x] = u - ix[x];
  }
  const line = new Float32Array(columns);
  for (let y = 0; y < height; y++) {
    const v = Math.min(rows - 1, Math.max(0, (y + 0.5) / BLOCK - 0.5));
    const iy = Math.max(0, Math.min(rows - 2, Math.floor(v)));
    const fy = v - iy;
    const top = iy * columns;
    const bottom = Math.min(rows - 1, iy + 1) * columns;
    for (let c = 0; c < columns; c++) {
      line[c] = blocks[top + c] + (blocks[bottom + c] - blocks[top + c]) * fy;
    }
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const left = line[ix[x]];
      const value = (left + (line[jx[x]] - left) * fx[x] + 0.5) | 0;
      light[row + x] = value < 1 ? 1 : value;
    }
  }
  return { light, columns, rows, blocks };
}

/** Each cell under 85% of the median of its (up to 8) neighbours is given that median. */
function fillDips(cells: Uint8Array, columns: number, rows: number): Uint8Array {
  const out = new Uint8Array(cells);
  const around: number[] = [];
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < columns; x++) {
      around.length = 0;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          const yy = y + dy;
          if ((dx || dy) && xx >= 0 && yy >= 0 && xx < columns && yy < rows) {
            around.push(cells[yy * columns + xx]);
          }
        }
      }
      if (around.length === 0) continue;
      around.sort((a, b) => a - b);
      const median = around[around.length >> 1];
      if (cells[y * columns + x] * 100 < median * 85) out[y * columns + x] = median;
    }
  }
  return out;
}

/** What the classifier measured (exported for tests and the bench). */
export interface PaperFigures {
  /** Share of blocks whose paper is darker than 30% of the brightest paper: not paper at all. */
  darkBlocks: number;
  /** Share of pixels, light divided out, at 80% of the paper or brighter. */
  paper: number;
  /** Share darker than half the paper: the ink. */
  ink: number;
  /** Share between 50% and 80%: mid-tones a page has little of beyond its strokes' edges. */
  middle: number;
  /**
   * Share of the marks (ink and mid-tones) whose 8 neighbours 3 pixels away are marks too (inside
   * a 7x7 square of marks, roughly): strokes are thin, so little of a page's marks is; a photo's
   * darker areas (hills, a face, a board) are areas.
   */
  solid: number;
}

/** Share of blocks whose paper is darker than 30% of the brightest. */
function darkBlocks(blocks: Uint8Array): number {
  let brightest = 0;
  for (let i = 0; i < blocks.length; i++) brightest = Math.max(brightest, blocks[i]);
  let dark = 0;
  for (let i = 0; i < blocks.length; i++) if (blocks[i] * 10 < brightest * 3) dark++;
  return dark / blocks.length;
}

/** The figures of a grey picture against its paper light. */
export function paperFigures(
  grey: Uint8Array,
  width: number,
  height: number,
  estimate: PaperLight,
): PaperFigures {
  const { light, blocks } = estimate;
  let paper = 0;
  let ink = 0;
  const marks = new Uint8Array(grey.length);
  for (let i = 0; i < grey.length; i++) {
    const g = grey[i] * 100;
    const l = light[i];
    if (g >= l * 80) paper++;
    else {
      marks[i] = 1;
      if (g < l * 50) ink++;
    }
  }
  // Solid: the 8 pixels 3 away (across, down, diagonally) are marks too, as inside a 7x7 square.
  let solid = 0;
  for (let y = 3; y < height - 3; y++) {
    for (let x = 3, i = y * width + 3; x < width - 3; x++, i++) {
      if (
        marks[i] && marks[i - 3] && marks[i + 3] && marks[i - 3 * width] && marks[i + 3 * width] &&
        marks[i - 3 * width - 3] && marks[i - 3 * width + 3] && marks[i + 3 * width - 3] &&
        marks[i + 3 * width + 3]
      ) solid++;
    }
  }
  const n = Math.max(1, grey.length);
  return {
    darkBlocks: darkBlocks(blocks),
    paper: paper / n,
    ink: ink / n,
    middle: (n - paper - ink) / n,
    solid: solid / Math.max(1, n - paper),
  };
}

/**
 * Paper with marks on it: nearly all of the picture lit like paper (no dark ground, no dark
 * objects), at least three quarters at the paper's own brightness once the light is divided out,
 * some marks (a blank or foggy picture has none; faint pencil counts), and the marks thin: little
 * of them inside a solid 7x7 square (a photo's shading and objects are areas, strokes are lines).
 */
export function looksLikeDocument(figures: PaperFigures): boolean {
  return figures.darkBlocks <= MAX_DARK_BLOCKS && figures.paper >= 0.75 && figures.paper <= 0.995 &&
    figures.solid <= 0.2;
}

/**
 * Divides the paper's light out of `grey` (in place): paper becomes white, ink keeps its
 * darkness relative to the paper around it. Then the ink is stretched so its darkest 0.5%
 * (among pixels darker than the paper) reaches black, and everything at 88% of the paper or
 * brighter is white, so a threshold at the middle keeps faint strokes and drops paper grain.
 */
export function flattenPaper(
  grey: Uint8Array,
  width: number,
  height: number,
  estimate: PaperLight = paperLight(grey, width, height),
): Uint8Array {
  const { light } = estimate;
  const histogram = new Uint32Array(256);
  for (let i = 0; i < grey.length; i++) {
    const v = Math.min(255, Math.round((grey[i] * 255) / light[i]));
    grey[i] = v;
    histogram[v]++;
  }
  const white = 224;
  let marked = 0;
  for (let g = 0; g < white; g++) marked += histogram[g];
  let black = 0;
  const darkest = Math.floor(marked * 0.005);
  for (let seen = 0; black < white - 64; black++) {
    seen += histogram[black];
    if (seen > darkest) break;
  }
  // Never stretch faint marks beyond a range of 96 (noise on blank paper is not ink).
  black = Math.min(black, white - 96);
  const curve = new Uint8Array(256);
  for (let g = 0; g < 256; g++) {
    curve[g] = Math.round(255 * Math.min(1, Math.max(0, (g - black) / (white - black))));
  }
  for (let i = 0; i < grey.length; i++) grey[i] = curve[grey[i]];
  return grey;
}

/**
 * Decides `auto`: is this grey picture (fitted, without the frame's white bands) a document? A
 * picture with a dark ground is decided from the blocks alone (the other figures are then NaN),
 * so most photos pay only for the block estimate; `estimate` is there for `flattenPaper`.
 */
export function isDocument(grey: Uint8Array, width: number, height: number): {
  document: boolean;
  estimate?: PaperLight;
  figures: PaperFigures;
} {
  const blocks = paperBlocks(grey, width, height);
  const dark = darkBlocks(blocks.blocks);
  if (dark > MAX_DARK_BLOCKS) {
    return {
      document: false,
      figures: { darkBlocks: dark, paper: NaN, ink: NaN, middle: NaN, solid: NaN },
    };
  }
  const estimate = lightOf(blocks, width, height);
  const figures = paperFigures(grey, width, height, estimate);
  return { document: looksLikeDocument(figures), estimate, figures };
}
