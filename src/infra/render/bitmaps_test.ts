import { decode, encode } from "fast-png";
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { defaultFit, MAX_SOURCE_PIXELS, renderImageBitmaps, type RenderResult } from "./bitmaps.ts";
import { encodeRgb, rgbPixels } from "./testing/images.ts";

function greyPng(width: number, height: number, value: number): Uint8Array {
  return encode({ width, height, data: new Uint8Array(width * height).fill(value), channels: 1 });
}

function rendered(result: RenderResult) {
  if (!result.ok) throw new Error(`render failed: ${result.code} ${result.message}`);
  return result.bitmaps;
}

Deno.test("bitmaps: a black 800x480 PNG is all zero bits in every format", async () => {
  const { png, raw2, raw4 } = rendered(await renderImageBitmaps(greyPng(800, 480, 0)));
  assertEquals(raw2.length, 48000);
  assertEquals(raw4.length, 96000);
  assert.ok(raw2.every((b) => b === 0));
  assert.ok(raw4.every((b) => b === 0));
  const decoded = decode(png);
  assertEquals([decoded.width, decoded.height, decoded.depth, decoded.channels], [800, 480, 1, 1]);
  assertEquals([...decoded.data], [...raw2]);
});

Deno.test("bitmaps: a black 400x480 image is centred between white bands", async () => {
  // contain: 400x480 fits as is at x = 200; each 100-byte row of raw2 is 25 white bytes,
  // 50 black, 25 white; raw4 rows are 200 bytes: 50 white, 100 black, 50 white
  const { raw2, raw4 } = rendered(await renderImageBitmaps(greyPng(400, 480, 0)));
  const row2 = [...new Array(25).fill(0xff), ...new Array(50).fill(0), ...new Array(25).fill(0xff)];
  const row4 = [
    ...new Array(50).fill(0xff),
    ...new Array(100).fill(0),
    ...new Array(50).fill(0xff),
  ];
  for (const y of [0, 239, 479]) {
    assertEquals([...raw2.subarray(y * 100, (y + 1) * 100)], row2);
    assertEquals([...raw4.subarray(y * 200, (y + 1) * 200)], row4);
  }
});

Deno.test("bitmaps: a small image is scaled up to fill the frame", async () => {
  // 8x4 black → 800x400 at y = 40: rows 0-39 and 440-479 white, the rest black
  const { raw2 } = rendered(await renderImageBitmaps(greyPng(8, 4, 0), { fit: "contain" }));
  assert.ok(raw2.subarray(0, 40 * 100).every((b) => b === 0xff));
  assert.ok(raw2.subarray(40 * 100, 440 * 100).every((b) => b === 0));
  assert.ok(raw2.subarray(440 * 100).every((b) => b === 0xff));
});

Deno.test("bitmaps: the default fit covers a frame of nearly its shape, contains the rest", () => {
  const panel = { width: 800, height: 480 };
  // 4:3 and 3:2 camera photos, a 16:9 screenshot: cropped by at most a quarter.
  for (const [w, h] of [[4000, 3000], [3000, 2000], [1920, 1080], [800, 480]]) {
    assertEquals(defaultFit(w, h, panel), "cover", `${w}x${h}`);
  }
  // Portrait photos, squares (0.6), panoramas: whole, on white.
  for (const [w, h] of [[3000, 4000], [1000, 1000], [4000, 1000]]) {
    assertEquals(defaultFit(w, h, panel), "contain", `${w}x${h}`);
  }
  // A portrait panel turns the rule round.
  assertEquals(defaultFit(3000, 4000, { width: 480, height: 800 }), "cover");
});

/** A 4:3 photo-like picture: a grey gradient, never white, so no band can be its own. */
function gradient43(): Uint8Array {
  const [w, h] = [400, 300];
  const data = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data[y * w + x] = 40 + ((x + y) % 120);
  return encode({ width: w, height: h, data, channels: 1 });
}

/** Whether column x of the 1 bpp frame is white from top to bottom. */
function whiteColumn(raw2: Uint8Array, x: number): boolean {
  for (let y = 0; y < 480; y++) {
    if (((raw2[y * 100 + (x >> 3)] >> (7 - (x & 7))) & 1) === 0) return false;
  }
  return true;
}

Deno.test("bitmaps: a 4:3 photo fills the frame by default (cover); contain keeps white bands", async () => {
  // Issue 34: custom photos were always letterboxed with white bars.
  const photo = gradient43();
  const cover = rendered(await renderImageBitmaps(photo, { mode: "photo" })).raw2;
  const contained = rendered(await renderImageBitmaps(photo, { mode: "photo", fit: "contain" }))
    .raw2;
  const asked = rendered(await renderImageBitmaps(photo, { mode: "photo", fit: "cover" })).raw2;
  assertEquals([...asked], [...cover]);
  // contain: 640x480 at x = 80: the columns left and right of it are white.
  assertEquals([whiteColumn(contained, 0), whiteColumn(contained, 79)], [true, true]);
  assertEquals([whiteColumn(contained, 720), whiteColumn(contained, 799)], [true, true]);
  // cover: 800x600 cropped to 800x480: no white band at either edge.
  assertEquals([whiteColumn(cover, 0), whiteColumn(cover, 799)], [false, false]);
  // A portrait picture is contained by default, and covers when asked.
  const portrait = encode({
    width: 300,
    height: 400,
    data: new Uint8Array(120000).fill(60),
    channels: 1,
  });
  const whole = rendered(await renderImageBitmaps(portrait, { mode: "photo" })).raw2;
  assertEquals(whiteColumn(whole, 0), true);
  const filled = rendered(await renderImageBitmaps(portrait, { mode: "photo", fit: "cover" })).raw2;
  assertEquals(whiteColumn(filled, 0), false);
});

Deno.test("bitmaps: JPEG sources render too", async () => {
  const jpeg = await encodeRgb(rgbPixels(160, 96, () => [200, 30, 30]), 160, 96, "jpeg");
  const { png, raw2, raw4 } = rendered(await renderImageBitmaps(jpeg));
  assertEquals([raw2.length, raw4.length, decode(png).depth], [48000, 96000, 1]);
});

Deno.test("bitmaps: unsupported, broken and oversized images are refused as values", async () => {
  const heic = Uint8Array.from("\0\0\0\x18ftypheic\0\0\0\0mif1heic", (c) => c.charCodeAt(0));
  const result = await renderImageBitmaps(heic);
  assertEquals(result.ok ? "" : result.code, "unsupported_format");
  const text = await renderImageBitmaps(new TextEncoder().encode("not an image"));
  assertEquals(text.ok ? "" : text.code, "unsupported_format");
  const tiff = await renderImageBitmaps(Uint8Array.from("II*\0\x08\0\0\0", (c) => c.charCodeAt(0)));
  assertEquals(tiff.ok ? "" : tiff.code, "undecodable");
  const headless = await renderImageBitmaps(Uint8Array.from([0xff, 0xd8, 0xff, 0xd9]));
  assertEquals(headless.ok ? "" : headless.code, "undecodable");
  const truncated = greyPng(100, 100, 50).slice(0, 40);
  const broken = await renderImageBitmaps(truncated);
  assertEquals(broken.ok ? "" : broken.code, "undecodable");
  const huge = greyPng(2, 2, 0);
  new DataView(huge.buffer).setUint32(16, 20_000);
  new DataView(huge.buffer).setUint32(20, 20_000);
  assert.ok(20_000 * 20_000 > MAX_SOURCE_PIXELS);
  const big = await renderImageBitmaps(huge);
  assertEquals(big.ok ? "" : big.code, "too_large");
});

/** Inserts an EXIF APP1 segment with one IFD0 entry, Orientation = `value`, after the SOI. */
function withExifOrientation(jpeg: Uint8Array, value: number): Uint8Array {
  const app1 = Uint8Array.from([
    0xff,
    0xe1,
    0x00,
    34, // APP1, length 34
    0x45,
    0x78,
    0x69,
    0x66,
    0x00,
    0x00, // "Exif\0\0"
    0x4d,
    0x4d,
    0x00,
    0x2a,
    0x00,
    0x00,
    0x00,
    0x08, // big-endian TIFF, IFD0 at 8
    0x00,
    0x01, // one entry
    0x01,
    0x12,
    0x00,
    0x03,
    0x00,
    0x00,
    0x00,
    0x01,
    0x00,
    value,
    0x00,
    0x00, // Orientation SHORT
    0x00,
    0x00,
    0x00,
    0x00, // no next IFD
  ]);
  return Uint8Array.from([...jpeg.subarray(0, 2), ...app1, ...jpeg.subarray(2)]);
}

Deno.test("bitmaps: EXIF orientation turns a sideways JPEG upright", async () => {
  // Stored 16x8: left half black, right half white
  const pixels = rgbPixels(16, 8, (x) => x < 8 ? [0, 0, 0] : [255, 255, 255]);
  const stored16x8 = await encodeRgb(pixels, 16, 8, "jpeg", { quality: 100 });
  const bit = (raw2: Uint8Array, x: number, y: number) =>
    (raw2[y * 100 + (x >> 3)] >> (7 - (x & 7))) & 1;
  const stored = rendered(await renderImageBitmaps(stored16x8, { fit: "contain" })).raw2;
  // as stored: 800x400 at y = 40, black on the left, white on the right
  assertEquals([bit(stored, 200, 240), bit(stored, 600, 240), bit(stored, 400, 10)], [0, 1, 1]);
  // orientation 6 (turn 90° clockwise): upright 8x16 → 240x480 at x = 280, black on top
  const jpeg = withExifOrientation(stored16x8, 6);
  const upright = rendered(await renderImageBitmaps(jpeg, { fit: "contain" })).raw2;
  assertEquals([bit(upright, 400, 100), bit(upright, 400, 380), bit(upright, 100, 240)], [0, 1, 1]);
});
