/**
 * Photos of paper (issue 26): the document classifier on synthetic photos of paper against the
 * committed test photos, the flattening of a lamp's gradient, and the per-upload override.
 */
import { assert } from "../../../tests/helpers/assert.ts";
import { renderImageBitmaps } from "./bitmaps.ts";
import { decodeImage } from "./decode.ts";
import { toGrey } from "./grey.ts";
import { flattenPaper, isDocument } from "./paper.ts";
import { paperPhoto } from "./testing/paper_photos.ts";

const PHOTOS = new URL("./testdata/photos/", import.meta.url);

async function fittedGrey(bytes: Uint8Array) {
  const decoded = await decodeImage(bytes, { box: { width: 800, height: 480 }, flatten: true });
  assert.ok(decoded.ok);
  if (!decoded.ok) throw new Error("undecodable");
  return { grey: toGrey(decoded), width: decoded.width, height: decoded.height };
}

async function classify(bytes: Uint8Array) {
  const { grey, width, height } = await fittedGrey(bytes);
  return isDocument(grey, width, height);
}

Deno.test("paper: photos of a page, notes, a receipt and a whiteboard are documents", async () => {
  const photos = [
    await Deno.readFile(new URL("paper-page.jpg", PHOTOS)),
    await Deno.readFile(new URL("paper-note.jpg", PHOTOS)),
    await Deno.readFile(new URL("text.png", PHOTOS)),
    (await paperPhoto("receipt")).bytes,
    (await paperPhoto("pencil")).bytes,
    (await paperPhoto("whiteboard")).bytes,
  ];
  for (const bytes of photos) {
    const { document, figures } = await classify(bytes);
    assert.ok(document, JSON.stringify(figures));
  }
});

Deno.test("paper: the test photos (circuit board, portrait, misty) are pictures", async () => {
  for (const name of ["circuit.jpg", "portrait.jpg", "misty.jpg"]) {
    const { document, figures } = await classify(await Deno.readFile(new URL(name, PHOTOS)));
    assert.ok(!document, `${name}: ${JSON.stringify(figures)}`);
  }
});

Deno.test("paper: blank paper, a flat grey, a gradient and a dark object are not documents", () => {
  const width = 320;
  const height = 240;
  const blank = new Uint8Array(width * height).fill(240);
  const grey = new Uint8Array(width * height).fill(128);
  const gradient = new Uint8Array(width * height);
  for (let i = 0; i < gradient.length; i++) gradient[i] = 40 + ((i % width) * 200) / width;
  // A dark object on a light table: lit like paper, but its mark is an area, not strokes.
  const object = new Uint8Array(width * height);
  for (let i = 0; i < object.length; i++) {
    const x = i % width;
    const y = Math.floor(i / width);
    object[i] = Math.hypot(x - 160, y - 120) < 30 ? 50 : 225;
  }
  for (const picture of [blank, grey, gradient, object]) {
    assert.ok(!isDocument(picture, width, height).document);
  }
});

/** Paper lit from 100% (left) to 35% (right), with a few dark strokes of 70% ink. */
function litPage(width: number, height: number) {
  const grey = new Uint8Array(width * height);
  const ink = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const light = 1 - 0.65 * (x / (width - 1));
      const stroke = y % 40 >= 18 && y % 40 < 22 && x % 60 < 44;
      ink[y * width + x] = stroke ? 1 : 0;
      grey[y * width + x] = Math.round((stroke ? 60 : 235) * light);
    }
  }
  return { grey, ink };
}

Deno.test("paper: flattening divides the lamp's gradient out (paper white, strokes black)", () => {
  const width = 400;
  const height = 240;
  const { grey, ink } = litPage(width, height);
  // Before: the dim side's paper (82) is nearly as dark as the lit side's ink (60).
  assert.ok(grey[width - 1] < 90);
  assert.ok(isDocument(grey, width, height).document);
  flattenPaper(grey, width, height);
  let paperDark = 0;
  let inkLight = 0;
  for (let i = 0; i < grey.length; i++) {
    if (ink[i]) inkLight += grey[i] >= 128 ? 1 : 0;
    else paperDark += grey[i] < 250 ? 1 : 0;
  }
  assert.equal(inkLight, 0, "every stroke pixel is below the threshold");
  // Only the paper touching a stroke's edge may stay off-white (the estimate's blocks).
  assert.ok(paperDark / grey.length < 0.01, `paper not white: ${paperDark} pixels`);
});

Deno.test("paper: the mode overrides the decision both ways; auto is the decision", async () => {
  const page = await Deno.readFile(new URL("paper-page.jpg", PHOTOS));
  const portrait = await Deno.readFile(new URL("portrait.jpg", PHOTOS));
  const raw = async (bytes: Uint8Array, mode?: "auto" | "photo" | "document") => {
    const result = await renderImageBitmaps(bytes, mode ? { mode } : {});
    assert.ok(result.ok);
    return result.ok ? result.bitmaps.raw2 : new Uint8Array();
  };
  const pageAuto = await raw(page);
  assert.deepStrictEqual(pageAuto, await raw(page, "document"));
  const pagePhoto = await raw(page, "photo");
  assert.notDeepStrictEqual(pagePhoto, pageAuto);
  // The photo rendering of a page under a lamp turns its shading into dots: far more black.
  const black = (bits: Uint8Array) => {
    let n = 0;
    for (const byte of bits) for (let b = byte ^ 0xff; b; b &= b - 1) n++;
    return n;
  };
  assert.ok(black(pagePhoto) > 4 * black(pageAuto), `${black(pagePhoto)} vs ${black(pageAuto)}`);
  const portraitAuto = await raw(portrait);
  assert.deepStrictEqual(portraitAuto, await raw(portrait, "photo"));
  assert.notDeepStrictEqual(portraitAuto, await raw(portrait, "document"));
});
