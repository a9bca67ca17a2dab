/**
 * Synthetic phone photos of paper (issue 26), for the document tests and `bench/paper.ts`: text
 * rasterised with the layout engine onto slightly tinted paper, then what a phone under a lamp
 * adds: a brightness gradient and vignette (and optionally a soft shadow), a little blur, sensor
 * noise, JPEG. Deterministic; nothing is downloaded. Each returns the text it shows, for OCR.
 */
import { Buffer } from "node:buffer";
import sharp from "sharp";
import { layoutSvg, rasterise } from "../layout/engine.ts";
import { FONT_FAMILY } from "../layout/fonts.ts";
import type { LayoutNode } from "../layout/html.ts";

export type PaperKind = "page" | "note" | "receipt" | "pencil" | "whiteboard";
export const PAPER_KINDS: readonly PaperKind[] = [
  "page",
  "note",
  "receipt",
  "pencil",
  "whiteboard",
];

export interface PaperPhoto {
  /** JPEG bytes. */
  bytes: Uint8Array;
  /** The text on the paper, one line per line. */
  text: string;
}

/** A deterministic generator in 0..1 (LCG). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

const PAGE = [
  "Minutes of the garden committee",
  "The meeting opened at seven with nine",
  "members present. The new water tank",
  "arrives on the third of June and will",
  "stand behind the tool shed. Plots four",
  "and eleven change hands next month.",
  "Compost bins must be turned weekly.",
  "Next meeting: Tuesday 14 May, 19:30.",
];

const NOTE = [
  "Call the plumber before Friday",
  "Buy stamps and two envelopes",
  "Return library books (3)",
  "Pick up Anna at 4:15",
  "Water the tomatoes",
];

const PENCIL = [
  "Bins out Tuesday night",
  "Dentist moved to 10:30",
  "Milk, flour, lemons",
  "Ring grandma Sunday",
];

const WHITEBOARD = [
  "Sprint 14 goals",
  "Ship the export page",
  "Fix login on tablets",
  "Review: Thursday 3pm",
];

const RECEIPT = [
  "CORNER MARKET",
  "12 Station Road",
  "Bread rye        3.20",
  "Milk oat 2l      2.45",
  "Apples 1.2kg     3.10",
  "Coffee beans     8.90",
  "Eggs x10         3.35",
  "TOTAL           21.00",
  "CARD             21.00",
  "Thank you!",
];

/** Black-ish lines of text on transparent, rasterised with the project's fonts. */
async function lines(
  width: number,
  height: number,
  text: string[],
  style: { left: number; top: number; size: number; gap: number; color: string },
): Promise<Uint8Array> {
  const tree = {
    type: "div",
    props: {
      style: { width, height, display: "flex", position: "relative", fontFamily: FONT_FAMILY },
      children: text.map((line, i) => ({
        type: "div",
        props: {
          style: {
            position: "absolute",
            left: style.left,
            top: style.top + i * style.gap,
            fontSize: style.size,
            color: style.color,
            fontWeight: i === 0 ? 700 : 400,
            whiteSpace: "pre",
          },
          children: line,
        },
      })),
    },
  } as unknown as LayoutNode;
  const svg = await layoutSvg(tree, width, height);
  return (await rasterise(svg, { width, height, background: "rgba(0,0,0,0)" })).rgba;
}

/** A wavy, slanted copy of `rgba` (handwriting is neither straight nor upright). */
function wobble(rgba: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(rgba.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const sx = Math.round(x + (y - height / 2) * 0.18 + 3 * Math.sin(y / 23));
      const sy = Math.round(y + 6 * Math.sin(x / 140) + 2 * Math.sin(x / 31));
      if (sx < 0 || sy < 0 || sx >= width || sy >= height) continue;
      const from = (sy * width + sx) * 4;
      out.set(rgba.subarray(from, from + 4), (y * width + x) * 4);
    }
  }
  return out;
}

/** Paper colour, ink composited, then the lamp's light, noise; blurred and JPEG-encoded. */
async function photograph(
  width: number,
  height: number,
  ink: Uint8Array,
  paper: [number, number, number],
  light: (x: number, y: number) => number,
  seed: number,
): Promise<Uint8Array> {
  const next = random(seed);
  const data = new Uint8Array(width * height * 3);
  for (let y = 0, p = 0, q = 0; y < height; y++) {
    for (let x = 0; x < width; x++, p += 3, q += 4) {
      const a = ink[q + 3] / 255;
      const l = light(x / width, y / height);
      const n = (next() + next() + next() - 1.5) * 16;
      for (let c = 0; c < 3; c++) {
        const v = paper[c] * (1 - a) + ink[q + c] * a;
        data[p + c] = Math.min(255, Math.max(0, v * l + n));
      }
    }
  }
  const jpeg = await sharp(data, { raw: { width, height, channels: 3 } })
    .blur(1.4).jpeg({ quality: 85 }).toBuffer();
  return new Uint8Array(jpeg);
}

/** A lamp at the top left: 100% there, falling to about 40% at the far corner with vignette. */
function lamp(x: number, y: number): number {
  const d = Math.hypot(x - 0.1, y - 0.05);
  const vignette = 1 - 0.15 * ((x - 0.5) ** 2 + (y - 0.5) ** 2) * 4;
  return (1 - 0.4 * d) * vignette;
}

/** A whiteboard under ceiling lights: a glare spot, darker towards the bottom corners. */
function glare(x: number, y: number): number {
  const spot = Math.exp(-((x - 0.7) ** 2 + (y - 0.25) ** 2) * 14);
  return 0.62 + 0.38 * spot - 0.15 * y * Math.abs(x - 0.5) * 2;
}

/** The phone's shadow across one side, soft-edged, over the lamp's gradient. */
function lampAndShadow(x: number, y: number): number {
  const edge = 1 / (1 + Math.exp(-(x + 0.3 * y - 0.85) * 18));
  return lamp(x, y) * (1 - 0.35 * edge);
}

/** One synthetic photo of paper. */
export async function paperPhoto(kind: PaperKind, seed = 1): Promise<PaperPhoto> {
  if (kind === "page") {
    const [width, height] = [1600, 1200];
    const ink = await lines(width, height, PAGE, {
      left: 110,
      top: 90,
      size: 54,
      gap: 128,
      color: "#1a1a1a",
    });
    const bytes = await photograph(width, height, ink, [238, 236, 228], lampAndShadow, seed);
    return { bytes, text: PAGE.join("\n") };
  }
  if (kind === "note") {
    const [width, height] = [1600, 1200];
    const flat = await lines(width, height, NOTE, {
      left: 180,
      top: 120,
      size: 72,
      gap: 200,
      color: "#1c2a6b",
    });
    const ink = wobble(flat, width, height);
    const bytes = await photograph(width, height, ink, [246, 240, 214], lamp, seed);
    return { bytes, text: NOTE.join("\n") };
  }
  if (kind === "pencil") {
    // Soft pencil: a light grey, thin stroke, on white paper under the lamp and the shadow.
    const [width, height] = [1600, 1200];
    const flat = await lines(width, height, PENCIL, {
      left: 160,
      top: 140,
      size: 64,
      gap: 220,
      color: "#8c8c8c",
    });
    const ink = wobble(flat, width, height);
    const bytes = await photograph(width, height, ink, [236, 236, 232], lampAndShadow, seed);
    return { bytes, text: PENCIL.join("\n") };
  }
  if (kind === "whiteboard") {
    const [width, height] = [1600, 1200];
    const flat = await lines(width, height, WHITEBOARD, {
      left: 140,
      top: 130,
      size: 84,
      gap: 240,
      color: "#1d3fa8",
    });
    const ink = wobble(flat, width, height);
    // Red headings on a whiteboard: the first line redrawn in red.
    for (let p = 0; p < width * 330 * 4; p += 4) {
      if (ink[p + 3]) ink[p] = 190, ink[p + 1] = 40, ink[p + 2] = 40;
    }
    const bytes = await photograph(width, height, ink, [232, 236, 238], glare, seed);
    return { bytes, text: WHITEBOARD.join("\n") };
  }
  const [width, height] = [900, 1600];
  const ink = await lines(width, height, RECEIPT, {
    left: 90,
    top: 110,
    size: 52,
    gap: 136,
    color: "#2b2b2b",
  });
  const bytes = await photograph(width, height, ink, [242, 242, 238], lampAndShadow, seed);
  return { bytes, text: RECEIPT.join("\n") };
}

/** The same, written to a PNG for looking at (bench and debugging). */
export function greyPng(grey: Uint8Array, width: number, height: number): Promise<Buffer> {
  return sharp(grey, { raw: { width, height, channels: 1 } }).png().toBuffer();
}
