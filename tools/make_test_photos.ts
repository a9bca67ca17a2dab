/**
 * Writes the render's test photos (issue 12) into src/infra/render/testdata/photos/: made here, from
 * shapes, the repo's own fonts and deterministic noise, so nothing is downloaded and the files can
 * be regenerated. Each stands for a kind of upload the tone stage and the kernels must handle:
 * - `circuit.jpg`: a circuit board under uneven light with small printed labels (fine detail);
 * - `portrait.jpg`: a face-like figure, smooth skin-tone gradients on a dark ground (mid-tones);
 * - `misty.jpg`: a dull, low-contrast landscape whose greys sit between 90 and 170 (levels);
 * - `text.png`: black text and line art on white, crisp (threshold, no speckle);
 * - `paper-page.jpg`, `paper-note.jpg`: a printed page and a handwritten-like note photographed
 *   under a lamp (issue 26: documents; `src/infra/render/testing/paper_photos.ts`).
 * Run: `deno run -A tools/make_test_photos.ts`.
 */
import { Buffer } from "node:buffer";
import sharp, { type Sharp } from "sharp";
import { layoutSvg, rasterise } from "../src/infra/render/layout/engine.ts";
import { FONT_FAMILY } from "../src/infra/render/layout/fonts.ts";
import type { LayoutNode } from "../src/infra/render/layout/html.ts";
import { paperPhoto } from "../src/infra/render/testing/paper_photos.ts";

const OUT = new URL("../src/infra/render/testdata/photos/", import.meta.url);

/** A deterministic generator in 0..1 (LCG). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** Text boxes at absolute positions, rasterised with the layout engine (glyphs as paths). */
async function labels(
  width: number,
  height: number,
  items: Array<{ x: number; y: number; text: string; size: number; color: string; bold?: boolean }>,
): Promise<Uint8Array> {
  const tree: LayoutNode = {
    type: "div",
    props: {
      style: { width, height, display: "flex", position: "relative", fontFamily: FONT_FAMILY },
      children: items.map((item) => ({
        type: "div",
        props: {
          style: {
            position: "absolute",
            left: item.x,
            top: item.y,
            fontSize: item.size,
            color: item.color,
            fontWeight: item.bold ? 700 : 400,
          },
          children: item.text,
        },
      })),
    },
  } as never;
  const svg = await layoutSvg(tree, width, height);
  const frame = await rasterise(svg, { width, height, background: "rgba(0,0,0,0)" });
  return frame.rgba;
}

/** Shapes (SVG), then labels, then light falloff and sensor noise: a plausible photo. */
async function photo(options: {
  width: number;
  height: number;
  svg: string;
  labels?: Parameters<typeof labels>[2];
  light?: (x: number, y: number) => number;
  noise: number;
  seed: number;
  blur?: number;
}): Promise<Sharp> {
  const { width, height } = options;
  let base = sharp(new TextEncoder().encode(options.svg)).resize(width, height);
  if (options.labels) {
    const rgba = await labels(width, height, options.labels);
    base = sharp(await base.png().toBuffer()).composite([{
      input: Buffer.from(rgba),
      raw: { width, height, channels: 4 },
    }]);
  }
  const { data } = await base.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const next = random(options.seed);
  for (let y = 0, p = 0; y < height; y++) {
    for (let x = 0; x < width; x++, p += 3) {
      const light = options.light ? options.light(x / width, y / height) : 1;
      const n = (next() + next() + next() - 1.5) * options.noise;
      for (let c = 0; c < 3; c++) data[p + c] = Math.min(255, Math.max(0, data[p + c] * light + n));
    }
  }
  const out = sharp(data, { raw: { width, height, channels: 3 } });
  return options.blur ? out.blur(options.blur) : out;
}

function circuitSvg(width: number, height: number, next: () => number): string {
  const parts: string[] = [`<rect width="${width}" height="${height}" fill="#1f5a32"/>`];
  for (let i = 0; i < 60; i++) {
    const y = Math.round(next() * height);
    const x0 = Math.round(next() * width);
    const x1 = Math.round(x0 + (next() - 0.5) * 700);
    const y1 = y + Math.round((next() - 0.5) * 200);
    parts.push(
      `<polyline points="${x0},${y} ${
        (x0 + x1) >> 1
      },${y} ${x1},${y1}" fill="none" stroke="#2f7a44" stroke-width="${
        3 + Math.round(next() * 5)
      }"/>`,
    );
  }
  for (let i = 0; i < 140; i++) {
    const x = Math.round(next() * width);
    const y = Math.round(next() * height);
    parts.push(
      `<circle cx="${x}" cy="${y}" r="6" fill="#c9b25a" stroke="#8c7a35" stroke-width="2"/>`,
    );
  }
  const chips = [[180, 200, 360, 220], [760, 160, 260, 260], [1120, 520, 300, 160], [
    300,
    640,
    220,
    120,
  ]];
  for (const [x, y, w, h] of chips) {
    parts.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="6" fill="#141414"/>`);
    for (let k = 12; k < w - 12; k += 26) {
      parts.push(`<rect x="${x + k}" y="${y - 14}" width="12" height="14" fill="#b8b8b8"/>`);
      parts.push(`<rect x="${x + k}" y="${y + h}" width="12" height="14" fill="#b8b8b8"/>`);
    }
  }
  for (let i = 0; i < 24; i++) {
    const x = 80 + Math.round(next() * (width - 200));
    const y = 80 + Math.round(next() * (height - 160));
    parts.push(`<rect x="${x}" y="${y}" width="44" height="18" fill="#c46a2b"/>`);
    parts.push(`<rect x="${x}" y="${y}" width="8" height="18" fill="#d8d8d8"/>`);
    parts.push(`<rect x="${x + 36}" y="${y}" width="8" height="18" fill="#d8d8d8"/>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${
    parts.join("")
  }</svg>`;
}

async function circuit(): Promise<Uint8Array> {
  const width = 1600;
  const height = 1200;
  const next = random(7);
  const items = [
    { x: 200, y: 280, text: "ATMEGA328P-PU", size: 30, color: "#e8e8e8", bold: true },
    { x: 200, y: 320, text: "1843  TAIWAN", size: 20, color: "#bdbdbd" },
    { x: 790, y: 250, text: "ESP32-WROOM", size: 28, color: "#e8e8e8", bold: true },
    { x: 790, y: 290, text: "FCC ID 2AC7Z", size: 18, color: "#bdbdbd" },
    { x: 1140, y: 580, text: "CH340G", size: 28, color: "#e8e8e8", bold: true },
    { x: 320, y: 680, text: "AMS1117 3.3", size: 22, color: "#e8e8e8" },
  ];
  for (let i = 0; i < 40; i++) {
    const kind = ["R", "C", "D", "L", "TP"][i % 5];
    items.push({
      x: 60 + Math.round(next() * (width - 160)),
      y: 60 + Math.round(next() * (height - 120)),
      text: `${kind}${1 + Math.round(next() * 40)}`,
      size: 16 + Math.round(next() * 8),
      color: "#f2f2f2",
    });
  }
  items.push({
    x: 60,
    y: 1110,
    text: "DDS-PANEL REV 2.1  2025-03",
    size: 34,
    color: "#f2f2f2",
    bold: true,
  });
  const image = await photo({
    width,
    height,
    svg: circuitSvg(width, height, random(11)),
    labels: items,
    // A desk lamp from the top left: the far corner is half as bright.
    light: (x, y) => 1.15 - 0.55 * Math.hypot(x, y) / Math.SQRT2,
    noise: 14,
    seed: 3,
    blur: 0.7,
  });
  return new Uint8Array(await image.jpeg({ quality: 72, mozjpeg: true }).toBuffer());
}

async function portrait(): Promise<Uint8Array> {
  const width = 900;
  const height = 1200;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs>
      <radialGradient id="bg" cx="0.3" cy="0.2" r="1"><stop offset="0" stop-color="#5a6470"/><stop offset="1" stop-color="#1b1e22"/></radialGradient>
      <radialGradient id="skin" cx="0.38" cy="0.35" r="0.75"><stop offset="0" stop-color="#f1c7a8"/><stop offset="0.6" stop-color="#c98f6b"/><stop offset="1" stop-color="#7a4d36"/></radialGradient>
      <linearGradient id="coat" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#6b7f99"/><stop offset="1" stop-color="#26303d"/></linearGradient>
    </defs>
    <rect width="${width}" height="${height}" fill="url(#bg)"/>
    <path d="M120 1200 C160 900 300 840 450 840 C600 840 740 900 780 1200 Z" fill="url(#coat)"/>
    <rect x="390" y="700" width="120" height="170" fill="#b57f5e"/>
    <ellipse cx="450" cy="520" rx="210" ry="270" fill="url(#skin)"/>
    <path d="M235 470 C230 260 330 200 450 200 C590 200 680 280 668 480 C640 360 560 300 450 300 C340 300 270 360 235 470 Z" fill="#2b1d14"/>
    <ellipse cx="375" cy="500" rx="34" ry="16" fill="#f7f3ee"/><circle cx="378" cy="500" r="13" fill="#3a2a1e"/>
    <ellipse cx="530" cy="500" rx="34" ry="16" fill="#f7f3ee"/><circle cx="533" cy="500" r="13" fill="#3a2a1e"/>
    <path d="M445 520 C440 580 430 600 455 610" fill="none" stroke="#9c6a4f" stroke-width="5"/>
    <path d="M390 660 C430 690 480 690 515 660" fill="none" stroke="#8e4f42" stroke-width="9" stroke-linecap="round"/>
  </svg>`;
  const image = await photo({
    width,
    height,
    svg,
    light: (x) => 1.05 - 0.25 * x,
    noise: 10,
    seed: 5,
    blur: 1.2,
  });
  return new Uint8Array(await image.jpeg({ quality: 74, mozjpeg: true }).toBuffer());
}

async function misty(): Promise<Uint8Array> {
  const width = 1500;
  const height = 1000;
  const next = random(9);
  const trees: string[] = [];
  for (let i = 0; i < 70; i++) {
    const x = Math.round(next() * width);
    const base = 640 + Math.round(next() * 200);
    const h = 90 + Math.round(next() * 140);
    const shade = 96 + Math.round((base - 640) / 200 * -20 + next() * 20);
    const c = `rgb(${shade},${shade + 6},${shade - 4})`;
    trees.push(
      `<path d="M${x} ${base - h} L${x - h / 4} ${base} L${x + h / 4} ${base} Z" fill="${c}"/>`,
    );
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#9da3a8"/><stop offset="1" stop-color="#b9bbb8"/></linearGradient></defs>
    <rect width="${width}" height="${height}" fill="url(#sky)"/>
    <path d="M0 560 C300 440 520 520 760 470 C1000 420 1250 500 1500 450 L1500 1000 L0 1000 Z" fill="#8f968f"/>
    <path d="M0 700 C350 640 700 720 1000 660 C1200 620 1350 680 1500 650 L1500 1000 L0 1000 Z" fill="#7c8479"/>
    ${trees.join("")}
    <path d="M0 860 C400 830 900 880 1500 840 L1500 1000 L0 1000 Z" fill="#a4a69c"/>
    <rect x="680" y="760" width="90" height="60" fill="#6e6a63"/><path d="M670 760 L725 720 L780 760 Z" fill="#5f5a54"/>
  </svg>`;
  const image = await photo({ width, height, svg, noise: 8, seed: 13, blur: 1.5 });
  return new Uint8Array(await image.jpeg({ quality: 74, mozjpeg: true }).toBuffer());
}

async function text(): Promise<Uint8Array> {
  const width = 800;
  const height = 480;
  const rgba = await labels(width, height, [
    { x: 32, y: 24, text: "Shopping list", size: 44, color: "#000", bold: true },
    { x: 32, y: 96, text: "• Oat milk, 2 l", size: 28, color: "#000" },
    { x: 32, y: 136, text: "• Rye bread (sliced)", size: 28, color: "#000" },
    { x: 32, y: 176, text: "• Tomatoes 500 g, basil", size: 28, color: "#000" },
    {
      x: 32,
      y: 236,
      text: "Small print: opening hours 8:00-20:00, Sun 10-18",
      size: 16,
      color: "#000",
    },
    { x: 440, y: 300, text: "12,40 €", size: 64, color: "#000", bold: true },
  ]);
  const lines = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="${width}" height="${height}" fill="#fff"/>
    <rect x="24" y="280" width="360" height="170" fill="none" stroke="#000" stroke-width="3"/>
    <line x1="40" y1="300" x2="370" y2="430" stroke="#000" stroke-width="2"/>
    <circle cx="205" cy="365" r="60" fill="none" stroke="#000" stroke-width="4"/>
  </svg>`;
  return new Uint8Array(
    await sharp(new TextEncoder().encode(lines))
      .composite([{ input: Buffer.from(rgba), raw: { width, height, channels: 4 } }])
      .greyscale().png({ palette: false, compressionLevel: 9 }).toBuffer(),
  );
}

if (import.meta.main) {
  await Deno.mkdir(OUT, { recursive: true });
  const files: Record<string, Uint8Array> = {
    "circuit.jpg": await circuit(),
    "portrait.jpg": await portrait(),
    "misty.jpg": await misty(),
    "text.png": await text(),
    "paper-page.jpg": (await paperPhoto("page")).bytes,
    "paper-note.jpg": (await paperPhoto("note")).bytes,
  };
  for (const [name, bytes] of Object.entries(files)) {
    await Deno.writeFile(new URL(name, OUT), bytes);
    console.log(`${name}: ${bytes.length} bytes`);
  }
}
