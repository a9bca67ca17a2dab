/**
 * `deno task bench:paper`: do photos of paper read on the panel (issue 26)? Synthetic phone photos
 * of a printed page, a handwritten-like note and a receipt under a lamp (uneven light, blur,
 * noise, JPEG; `src/infra/render/testing/paper_photos.ts`) go through the upload render as a push would
 * (`auto`, and `photo` as the render was before documents were told apart), and each 1-bit
 * `image.png` is read by tesseract beside the 8-bit grey picture of the same photo at the same
 * size (what the panel would show if it had grey). Prints the character accuracy of each
 * (1 - edit distance / length of the true text, whitespace collapsed). Needs `tesseract` on PATH
 * (Debian: tesseract-ocr); not part of `deno task bench`. The PNGs are written to the folder
 * given as the first argument (default: a temporary one) for looking at.
 */
import sharp from "sharp";
import { renderImageBitmaps } from "../src/infra/render/bitmaps.ts";
import { decodeImage } from "../src/infra/render/decode.ts";
import { toGrey } from "../src/infra/render/grey.ts";
import { isDocument } from "../src/infra/render/paper.ts";
import { FRAME_HEIGHT, FRAME_WIDTH } from "../src/infra/render/types.ts";
import { PAPER_KINDS, paperPhoto } from "../src/infra/render/testing/paper_photos.ts";
import { helpAndExit } from "../src/infra/lib/usage.ts";

helpAndExit(
  Deno.args,
  `Usage: deno task bench:paper [folder]

OCR (tesseract) character accuracy of synthetic photos of paper rendered to 1 bit, against the
8-bit grey picture of the same photo. Writes the PNGs to folder (default: a temporary folder).`,
);

const folder = Deno.args[0] ?? await Deno.makeTempDir({ prefix: "paper-bench-" });
await Deno.mkdir(folder, { recursive: true });

/** Levenshtein distance, two rows. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}

const normalise = (text: string) => text.replace(/\s+/g, " ").trim();

/** Character accuracy of `read` against `truth`, 0..1 (never below 0). */
function accuracy(read: string, truth: string): number {
  const t = normalise(truth);
  return Math.max(0, 1 - distance(normalise(read), t) / t.length);
}

/**
 * Tesseract's reading of a PNG, one block of text (`--psm 6`). `adaptive` binarises with Sauvola's
 * local threshold instead of the default global Otsu: the fairest reading of a grey picture under
 * uneven light (Otsu's single threshold loses the dim half of the page).
 */
async function ocr(path: string, adaptive = false): Promise<string> {
  const { stdout, success } = await new Deno.Command("tesseract", {
    args: [
      path,
      "stdout",
      "--psm",
      "6",
      "-l",
      "eng",
      ...(adaptive ? ["-c", "thresholding_method=2"] : []),
    ],
    stdout: "piped",
    stderr: "null",
  }).output();
  if (!success) throw new Error(`tesseract failed on ${path}`);
  return new TextDecoder().decode(stdout);
}

/** The 8-bit grey picture of a photo, fitted and centred on white like the push (no tone). */
async function greyFrame(bytes: Uint8Array): Promise<Uint8Array> {
  const decoded = await decodeImage(bytes, {
    box: { width: FRAME_WIDTH, height: FRAME_HEIGHT },
    flatten: true,
  });
  if (!decoded.ok) throw new Error(decoded.message);
  const grey = toGrey(decoded);
  const png = await sharp(grey, {
    raw: { width: decoded.width, height: decoded.height, channels: 1 },
  })
    .extend({
      top: (FRAME_HEIGHT - decoded.height) >> 1,
      bottom: FRAME_HEIGHT - decoded.height - ((FRAME_HEIGHT - decoded.height) >> 1),
      left: (FRAME_WIDTH - decoded.width) >> 1,
      right: FRAME_WIDTH - decoded.width - ((FRAME_WIDTH - decoded.width) >> 1),
      background: { r: 255, g: 255, b: 255 },
    })
    .png().toBuffer();
  return new Uint8Array(png);
}

/** Whether `auto` took the photo for a document. */
async function classified(bytes: Uint8Array): Promise<boolean> {
  const decoded = await decodeImage(bytes, {
    box: { width: FRAME_WIDTH, height: FRAME_HEIGHT },
    flatten: true,
  });
  if (!decoded.ok) throw new Error(decoded.message);
  return isDocument(toGrey(decoded), decoded.width, decoded.height).document;
}

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;
const rows: string[][] = [[
  "photo",
  "auto says",
  "8-bit grey",
  "8-bit grey (Sauvola)",
  "1-bit auto",
  "1-bit photo mode",
]];
for (const kind of PAPER_KINDS) {
  for (const seed of [1, 2]) {
    const { bytes, text } = await paperPhoto(kind, seed);
    const name = `${kind}-${seed}`;
    await Deno.writeFile(`${folder}/${name}.jpg`, bytes);
    await Deno.writeFile(`${folder}/${name}-grey.png`, await greyFrame(bytes));
    for (const mode of ["auto", "photo"] as const) {
      const result = await renderImageBitmaps(bytes, { mode });
      if (!result.ok) throw new Error(result.message);
      await Deno.writeFile(`${folder}/${name}-${mode}.png`, result.bitmaps.png);
    }
    const read = async (variant: string, adaptive = false) =>
      percent(accuracy(await ocr(`${folder}/${name}-${variant}.png`, adaptive), text));
    const scores = [
      await read("grey"),
      await read("grey", true),
      await read("auto"),
      await read("photo"),
    ];
    rows.push([name, (await classified(bytes)) ? "document" : "photo", ...scores]);
  }
}
const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
for (const row of rows) console.log(row.map((cell, c) => cell.padEnd(widths[c])).join("  "));
console.log(`PNGs in ${folder}`);
