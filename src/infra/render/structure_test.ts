import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { bombs, buildPng, ihdr, pngChunk, shortBmp } from "../../../tests/helpers/bombs.ts";
import { decodeImage } from "./decode.ts";
import { checkImageStructure } from "./structure.ts";
import { encodeRgb, rgbPixels } from "./testing/images.ts";

const FORMATS = ["png", "jpeg", "webp", "gif", "avif", "tiff"] as const;

function verdict(bytes: Uint8Array) {
  const result = checkImageStructure(bytes);
  return result.ok ? `ok ${result.format} ${result.width}x${result.height}` : result.code;
}

async function sample(format: typeof FORMATS[number], width = 30, height = 20) {
  const data = rgbPixels(width, height, (x, y) => [x * 8, y * 12, 128]);
  return await encodeRgb(data, width, height, format);
}

/** A complete 24-bit BMP. */
function bmp(width: number, height: number): Uint8Array {
  return shortBmp(width, height, Math.ceil((width * 3) / 4) * 4 * height + 12);
}

Deno.test("image structure: what an encoder writes passes, with its size", async () => {
  for (const format of FORMATS) {
    assertEquals(verdict(await sample(format)), `ok ${format} 30x20`, format);
  }
  assertEquals(verdict(bmp(30, 20)), "ok bmp 30x20");
  // WebP's three kinds of first chunk: lossy (VP8), lossless (VP8L), extended (VP8X, alpha).
  const sharp = (await import("sharp")).default;
  const raw = { raw: { width: 30, height: 20, channels: 3 as const } };
  const pixels = rgbPixels(30, 20, () => [10, 20, 30]);
  const lossless = await sharp(pixels, raw).webp({ lossless: true }).toBuffer();
  const alpha = await sharp(pixels, raw).ensureAlpha(0.5).webp().toBuffer();
  for (const webp of [lossless, alpha]) {
    assertEquals(verdict(new Uint8Array(webp)), "ok webp 30x20");
  }
});

Deno.test("image structure: issue 25's uploads are refused (header, truncation)", async () => {
  // A PNG signature followed by 5,000 0xff bytes.
  const ffs = new Uint8Array(5008).fill(0xff);
  ffs.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assertEquals(verdict(ffs), "undecodable");
  const png = await sample("png", 200, 100);
  const jpeg = await sample("jpeg", 200, 100);
  for (const cut of [0.1, 0.5, 0.9]) {
    assertEquals(
      verdict(png.subarray(0, Math.floor(png.length * cut))),
      "undecodable",
      `png ${cut}`,
    );
    assertEquals(
      verdict(jpeg.subarray(0, Math.floor(jpeg.length * cut))),
      "undecodable",
      `jpeg ${cut}`,
    );
  }
  // A JPEG missing only its end-of-image marker: libjpeg-turbo refuses it too.
  assertEquals(verdict(jpeg.subarray(0, jpeg.length - 2)), "undecodable");
  const refused = await decodeImage(jpeg.subarray(0, jpeg.length - 2));
  assertEquals(refused.ok ? "ok" : refused.code, "undecodable");
  for (const format of ["webp", "gif", "avif", "tiff"] as const) {
    assertEquals(verdict((await sample(format)).subarray(0, 40)), "undecodable", format);
  }
  // Cut anywhere in their data, WebP, GIF and AVIF are refused by libvips and here alike (a
  // TIFF's strips are not walked: the render refuses it).
  for (const format of ["webp", "gif", "avif"] as const) {
    const whole = await sample(format, 300, 200);
    for (const cut of [2, Math.floor(whole.length / 10), Math.floor(whole.length / 2)]) {
      const cutShort = whole.subarray(0, whole.length - cut);
      assertEquals(verdict(cutShort), "undecodable", `${format} less ${cut}`);
      const decoded = await decodeImage(cutShort);
      assertEquals(decoded.ok ? "ok" : decoded.code, "undecodable", `${format} less ${cut}`);
    }
  }
  assertEquals(verdict(new TextEncoder().encode("GIF89a\x01\x00")), "undecodable");
  assertEquals(verdict(new TextEncoder().encode("<svg/>")), "unsupported_format");
});

Deno.test("image structure: PNG chunks are walked, not inflated", () => {
  const idat = pngChunk("IDAT", Uint8Array.from([0x78, 0x9c, 3, 0]));
  assertEquals(verdict(buildPng(ihdr(10, 10), [idat])), "ok png 10x10");
  assertEquals(verdict(buildPng(ihdr(10, 10), [])), "undecodable"); // no image data
  const notZlib = pngChunk("IDAT", Uint8Array.from([0xff, 0xff, 3, 0]));
  assertEquals(verdict(buildPng(ihdr(10, 10), [notZlib])), "undecodable");
  assertEquals(verdict(buildPng(ihdr(10, 10, { colorType: 3 }), [idat])), "undecodable");
  assertEquals(verdict(buildPng(ihdr(10, 10, { depth: 7 }), [idat])), "undecodable");
  assertEquals(verdict(buildPng(ihdr(7000, 7000), [idat])), "too_large");
});

Deno.test("image structure: every bomb is refused but those only inflating shows", async () => {
  for (const bomb of await bombs()) {
    const result = checkImageStructure(bomb.bytes);
    // The IDAT bomb's chunks are sound: only inflating its data shows it (the render does).
    const expected = bomb.name === "PNG IDAT bomb" || bomb.mayRender;
    assertEquals(result.ok, !!expected, `${bomb.name}: ${result.ok ? "ok" : result.message}`);
  }
});

Deno.test("image structure: the worst 10 MB files take milliseconds on the request loop", () => {
  const MB10 = 10 * 1024 * 1024;
  const png = new Uint8Array(MB10);
  png.set(buildPng(ihdr(10, 10), []).subarray(0, 33));
  // 873,000 empty chunks (zero CRCs: the walk does not check them): text, then image data
  for (let at = 33; at + 12 <= MB10; at += 12) png.set([0, 0, 0, 0, 0x74, 0x45, 0x58, 0x74], at);
  const idats = png.slice();
  for (let at = 33; at + 12 <= MB10; at += 12) idats.set([0x49, 0x44, 0x41, 0x54], at + 4);
  const head = [0xff, 0xd8, 0xff, 0xc0, 0, 11, 8, 0, 16, 0, 16, 1, 1, 0x11, 0, 0xff, 0xda, 0, 2];
  const stuffed = new Uint8Array(MB10).fill(0x00);
  for (let i = head.length; i < MB10; i += 2) stuffed[i] = 0xff; // FF00 pairs: scan data
  stuffed.set(head);
  const fill = new Uint8Array(MB10).fill(0xff);
  fill.set(head.slice(0, 15));
  const comments = new Uint8Array(MB10);
  comments.set(head.slice(0, 15));
  for (let at = 15; at + 4 <= MB10; at += 4) comments.set([0xff, 0xfe, 0, 2], at);
  const avif = new Uint8Array(MB10);
  avif.set([0, 0, 0, 16, ...new TextEncoder().encode("ftypavif"), 0, 0, 0, 0]);
  for (let at = 16; at + 8 <= MB10; at += 8) avif.set([0, 0, 0, 8, 0x66, 0x72, 0x65, 0x65], at);
  for (const [name, bytes] of Object.entries({ png, idats, stuffed, fill, comments, avif })) {
    const started = performance.now();
    const result = checkImageStructure(bytes);
    const ms = performance.now() - started;
    assert.ok(!result.ok, name);
    // 5-30 ms each on a core of a loaded 2-core machine; the bound leaves room for noise.
    assert.ok(ms < 300, `${name}: ${ms.toFixed(0)} ms`);
    console.log(`${name}: ${ms.toFixed(1)} ms`);
  }
});
