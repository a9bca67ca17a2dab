/**
 * The render pool end to end: real Piscina workers decode, fit, dither and pack generated
 * PNG and JPEG uploads into the three push formats.
 */
import { decode, encode } from "fast-png";
import { encodeJpeg, Image } from "image-js";
import { AppError } from "../src/errors.ts";
import { createRenderPool } from "../src/render/pool.ts";
import { assert, assertEquals } from "./helpers/assert.ts";
import { startTestServer } from "./helpers/server.ts";

function photoLike(width: number, height: number): Image {
  const image = new Image(width, height, { colorModel: "RGB" });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      image.setPixel(x, y, [(x * 255) / width, (y * 255) / height, 128]);
    }
  }
  return image;
}

function assertPushBitmaps(bitmaps: { png: Uint8Array; raw2: Uint8Array; raw4: Uint8Array }) {
  assertEquals(bitmaps.raw2.length, 48000);
  assertEquals(bitmaps.raw4.length, 96000);
  const png = decode(bitmaps.png);
  assertEquals([png.width, png.height, png.depth, png.channels], [800, 480, 1, 1]);
  assertEquals([...png.data], [...bitmaps.raw2]);
}

Deno.test("render pool: PNG and JPEG uploads become png/raw2/raw4 of the right sizes", async () => {
  const pool = await createRenderPool({ threads: 2 });
  try {
    const image = photoLike(640, 400);
    const pngSource = encode({
      width: 640,
      height: 400,
      data: image.getRawImage().data as Uint8Array,
      channels: 3,
    });
    const [fromPng, fromJpeg] = await Promise.all([
      pool.renderImage(pngSource),
      pool.renderImage(encodeJpeg(image)),
    ]);
    assertPushBitmaps(fromPng);
    assertPushBitmaps(fromJpeg);
    // A gradient dithers to a mix of both colours, not a flat frame.
    assert.ok(fromPng.raw2.some((b) => b !== 0 && b !== 0xff));
    // The caller's buffer is copied before transfer, so it stays usable.
    assertEquals(pngSource.length > 0, true);
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: an image it cannot render rejects with AppError, the pool lives on", async () => {
  const pool = await createRenderPool({ threads: 1 });
  try {
    const webp = Uint8Array.from("RIFF\0\0\0\0WEBPVP8 ", (c) => c.charCodeAt(0));
    const error = await pool.renderImage(webp).catch((e) => e);
    assert.ok(error instanceof AppError);
    assertEquals([error.code, error.status], ["unsupported_media_type", 415]);
    const white = encode({ width: 8, height: 8, data: new Uint8Array(64).fill(255), channels: 1 });
    const { raw2 } = await pool.renderImage(white);
    assert.ok(raw2.every((b) => b === 0xff));
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: closed pools refuse work", async () => {
  const pool = await createRenderPool({ threads: 1 });
  await pool.close();
  const error = await pool.renderImage(new Uint8Array(8)).catch((e) => e);
  assert.ok(error instanceof AppError);
  assertEquals(error.code, "unavailable");
});

Deno.test({
  name: "render pool: the app exposes a warm renderer and jobs on its services, and closes them",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const server = await startTestServer();
    try {
      const { renderer, jobs } = server.app.services;
      const black = encode({ width: 4, height: 4, data: new Uint8Array(16), channels: 1 });
      const { raw2, raw4, png } = await renderer.renderImage(black);
      assertEquals([raw2.length, raw4.length, decode(png).depth], [48000, 96000, 1]);
      assertEquals(typeof jobs.send, "function");
    } finally {
      await server.close();
    }
    // Closed with the app: the pool refuses further work.
    const error = await server.app.services.renderer.renderImage(new Uint8Array(8)).catch((e) => e);
    assert.ok(error instanceof AppError);
  },
});
