/**
 * The render pool end to end: real Piscina workers decode, fit, dither and pack generated
 * PNG and JPEG uploads into the three push formats, render push templates into the same formats
 * and Scene renditions into PNG.
 */
import { decode, encode } from "fast-png";
import { encodeRgb, gradientJpeg, rgbPixels } from "../src/infra/render/testing/images.ts";
import { AppError } from "../src/errors.ts";
import { toHttpError } from "../src/infra/render/errors.ts";
import { createRenderPool } from "../src/infra/render/pool.ts";
import { assert, assertEquals } from "./helpers/assert.ts";
import { startTestServer } from "./helpers/server.ts";
import { bombs, MiB } from "./helpers/bombs.ts";

function photoLike(width: number, height: number): Uint8Array {
  return rgbPixels(width, height, (x, y) => [(x * 255) / width, (y * 255) / height, 128]);
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
    const pngSource = encode({ width: 640, height: 400, data: image, channels: 3 });
    const [fromPng, fromJpeg] = await Promise.all([
      pool.renderImage(pngSource),
      pool.renderImage(await encodeRgb(image, 640, 400, "jpeg")),
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

Deno.test("render pool: a burst runs on the warm worker, none waits for one still starting", async () => {
  // Issue 26: Piscina gave one task of a burst to the worker it started for it, and the task
  // waited out that start (~0.6 s) while the warm worker rendered the rest.
  const pool = await createRenderPool({ threads: 2 });
  try {
    assertEquals(pool.readyThreads, 1);
    const source = await encodeRgb(photoLike(320, 200), 320, 200, "jpeg");
    const renders = Array.from({ length: 6 }, () => pool.renderImage(source));
    // The second worker starts for the burst...
    assertEquals(pool.threads, 2);
    for (const bitmaps of await Promise.all(renders)) assertPushBitmaps(bitmaps);
    // ...but every render was done by the warm one before the second was ready.
    assertEquals(pool.readyThreads, 1);
    // Once ready, it takes tasks as well.
    while (pool.readyThreads < 2) await new Promise((r) => setTimeout(r, 20));
    assertPushBitmaps(await pool.renderImage(source));
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: an image it cannot render rejects with AppError, the pool lives on", async () => {
  const pool = await createRenderPool({ threads: 1 });
  try {
    const heic = Uint8Array.from("\0\0\0\x18ftypheic\0\0\0\0mif1heic", (c) => c.charCodeAt(0));
    const error = await pool.renderImage(heic).catch(toHttpError);
    assert.ok(error instanceof AppError);
    assertEquals([error.code, error.status], ["unsupported_media_type", 415]);
    const white = encode({ width: 8, height: 8, data: new Uint8Array(64).fill(255), channels: 1 });
    const { raw2 } = await pool.renderImage(white);
    assert.ok(raw2.every((b) => b === 0xff));
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: push templates render in the workers into the push formats", async () => {
  const pool = await createRenderPool({ threads: 2 });
  try {
    const photo = await gradientJpeg(320, 200);
    const before = photo.slice();
    const [note, checklist, picture] = await Promise.all([
      pool.renderTemplate({ name: "note", variables: { title: "Hi", body: "Text & <b>more</b>" } }),
      pool.renderTemplate({ name: "checklist", variables: { items: [{ text: "a", done: true }] } }),
      pool.renderTemplate({ name: "photo", variables: { photo: "f1" }, images: { f1: photo } }),
    ]);
    for (const bitmaps of [note, checklist, picture]) assertPushBitmaps(bitmaps);
    // Text only: no dithering, so raw4 has no grey level (01 or 10) anywhere.
    assert.ok(
      note.raw4.every((b) => [0, 1, 2, 3].every((i) => [0, 3].includes((b >> (2 * i)) & 3))),
    );
    assert.ok(!picture.raw4.every((b) => b === 0xff || b === 0));
    // The caller's image bytes were copied before transfer.
    assertEquals(photo, before);
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: template failures reject with 404 / 400 / 415, the pool lives on", async () => {
  const pool = await createRenderPool({ threads: 1 });
  try {
    const reject = (request: Parameters<typeof pool.renderTemplate>[0]) =>
      pool.renderTemplate(request).catch(toHttpError);
    const unknown = await reject({ name: "nope", variables: {} });
    assert.ok(unknown instanceof AppError);
    assertEquals([unknown.status, unknown.code], [404, "not_found"]);
    const invalid = await reject({ name: "note", variables: { body: ["x"] } });
    assert.ok(invalid instanceof AppError);
    assertEquals([invalid.status, invalid.message], [400, "Variable body must be string"]);
    const notImage = await reject({
      name: "photo",
      variables: { photo: "f" },
      images: { f: new TextEncoder().encode("plain text") },
    });
    assert.ok(notImage instanceof AppError);
    assertEquals(notImage.status, 415);
    assertPushBitmaps(
      await pool.renderTemplate({ name: "quote", variables: { quote: "Still up." } }),
    );
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: Scene renditions come back as PNG of the requested size and mode", async () => {
  const pool = await createRenderPool({ threads: 2 });
  try {
    const scene = {
      version: 1,
      viewport: { width: 800, height: 480 },
      elements: [
        {
          id: "t",
          type: "text",
          frame: { x: 20, y: 20, width: 400, height: 40 },
          properties: { text: "Hi" },
        },
        {
          id: "i",
          type: "image",
          frame: { x: 20, y: 80, width: 320, height: 200 },
          properties: { fileId: "f" },
        },
      ],
    };
    const images = { f: await gradientJpeg(160, 100) };
    const [color, mono] = await Promise.all([
      pool.renderScene({ scene, images, width: 400, height: 400 }),
      pool.renderScene({ scene, images, width: 800, height: 480, colorMode: "monochrome" }),
    ]);
    const a = decode(color);
    const b = decode(mono);
    assertEquals([a.width, a.height, a.channels, a.depth], [400, 400, 3, 8]);
    assertEquals([b.width, b.height, b.channels, b.depth], [800, 480, 1, 1]);
    const invalid = await pool.renderScene({
      scene: { ...scene, version: 2 },
      width: 10,
      height: 10,
    })
      .catch(toHttpError);
    assert.ok(invalid instanceof AppError);
    assertEquals([invalid.status, invalid.message], [
      400,
      "Scene version 2 is not supported; use 1",
    ]);
    const tooBig = await pool.renderScene({ scene, width: 4000, height: 4000 }).catch(toHttpError);
    assert.ok(tooBig instanceof AppError);
    assertEquals(tooBig.status, 400);
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: the native raster's memory is given back between renders", async () => {
  // The native resvg frees each drawn pixmap in a finalizer that runs on the worker's event loop;
  // a worker parked in Piscina's blocking Atomics.wait never ran it, and every 2000x2000 frame
  // kept its 16 MB (pool.ts). 60 frames would then hold ~1 GB.
  const pool = await createRenderPool({ threads: 1 });
  try {
    const scene = {
      version: 1,
      viewport: { width: 2000, height: 2000 },
      elements: [{
        id: "s",
        type: "shape",
        frame: { x: 100, y: 100, width: 1800, height: 1800 },
        properties: { fill: "#336699", cornerRadius: 40 },
      }],
    };
    await pool.renderScene({ scene, width: 2000, height: 2000 });
    const before = Deno.memoryUsage().rss;
    for (let i = 0; i < 60; i++) await pool.renderScene({ scene, width: 2000, height: 2000 });
    const growth = Deno.memoryUsage().rss - before;
    assert.ok(growth < 200 * MiB, `resident memory grew by ${Math.round(growth / MiB)} MiB`);
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: a template preview is the push image alone, the same bytes", async () => {
  const pool = await createRenderPool({ threads: 1 });
  try {
    const request = {
      name: "note",
      variables: { title: "Preview", body: "Only the PNG comes back." },
      now: "2026-11-23T09:00:00.000Z",
    };
    const full = await pool.renderTemplate(request);
    const preview = await pool.previewTemplate(request);
    assertEquals([...preview], [...full.png]);
    // The reply's only buffer is the PNG's (raw2 and raw4 stay in the worker).
    assertEquals(preview.buffer.byteLength, full.png.byteLength);
    const error = await pool.previewTemplate({ name: "nope", variables: {} }).catch(toHttpError);
    assertEquals(error instanceof AppError && error.code, "not_found");
  } finally {
    await pool.close();
  }
});

Deno.test("render pool: closed pools refuse work", async () => {
  const pool = await createRenderPool({ threads: 1 });
  await pool.close();
  const error = await pool.renderImage(new Uint8Array(8)).catch(toHttpError);
  assert.ok(error instanceof AppError);
  assertEquals(error.code, "unavailable");
  const template = await pool.renderTemplate({ name: "note", variables: { body: "x" } })
    .catch(toHttpError);
  assertEquals(template instanceof AppError && template.code, "unavailable");
  const scene = await pool.renderScene({ scene: {}, width: 1, height: 1 }).catch(toHttpError);
  assertEquals(scene instanceof AppError && scene.code, "unavailable");
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
    const error = await server.app.services.renderer.renderImage(new Uint8Array(8)).catch(
      toHttpError,
    );
    assert.ok(error instanceof AppError);
  },
});

/** The highest resident size seen while `work` runs (render workers are threads of this process). */
async function peakRss(work: () => Promise<unknown>): Promise<{ growth: number; result: unknown }> {
  const before = Deno.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 5);
  try {
    const result = await work().catch(toHttpError);
    peak = Math.max(peak, Deno.memoryUsage().rss);
    return { growth: peak - before, result };
  } finally {
    clearInterval(timer);
  }
}

Deno.test("render pool: decompression and allocation bombs are refused before decoding", async () => {
  const all = await bombs();
  const pool = await createRenderPool({ threads: 1 });
  try {
    for (const bomb of all) {
      const { growth, result } = await peakRss(() => pool.renderImage(bomb.bytes));
      if (!(bomb.mayRender && !(result instanceof Error))) {
        // A permanent refusal (413/415) the render job records, never a crash.
        assert.ok(result instanceof AppError, `${bomb.name}: ${result}`);
        assert.ok(
          ["payload_too_large", "unsupported_media_type"].includes(result.code),
          `${bomb.name}: ${result.code}`,
        );
      }
      // A bound, not a time: what the header allows here is at most a few MB.
      assert.ok(growth < 64 * MiB, `${bomb.name}: resident size grew ${growth / MiB} MiB`);
    }
  } finally {
    await pool.close();
  }
});

/** Threads of this process at nice 10 (Linux: field 19 of /proc/self/task/<tid>/stat). */
/** Ids of this process's threads at nice 10 (threads of earlier pools may still be exiting). */
function nicedThreads(): Set<string> {
  const ids = new Set<string>();
  for (const task of Deno.readDirSync("/proc/self/task")) {
    let stat: string;
    try {
      stat = Deno.readTextFileSync(`/proc/self/task/${task.name}/stat`);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue; // exited since the listing
      throw error;
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[16]) === 10) ids.add(task.name);
  }
  return ids;
}

Deno.test({
  name: "render pool: workers run below the request loop's CPU priority (Linux)",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const before = nicedThreads();
    const pool = await createRenderPool({ threads: 2 });
    try {
      // The two workers, and threads they start (libvips, Deno's blocking pool) inherit it.
      const lowered = [...nicedThreads()].filter((id) => !before.has(id)).length;
      assert.ok(lowered >= 2, `${lowered} threads lowered`);
      // The request loop (the main thread, whose id is the process id) keeps its priority.
      assertEquals((await import("node:os")).default.getPriority(Deno.pid), 0);
    } finally {
      await pool.close();
    }
  },
});

Deno.test("render pool without resting workers: none until a render, none again after idle", async () => {
  // The service's pool (issue 40): no worker at rest, so none holds memory or takes the cores at
  // start; the first render starts one, and it ends after the idle timeout.
  const pool = await createRenderPool({ threads: 2, restingThreads: 0, idleTimeoutMs: 300 });
  try {
    assertEquals([pool.threads, pool.alive], [0, true]);
    const source = await encodeRgb(photoLike(320, 200), 320, 200, "jpeg");
    assertPushBitmaps(await pool.renderImage(source));
    assert.ok(pool.threads >= 1);
    while (pool.threads > 0) await new Promise((r) => setTimeout(r, 50));
    assertEquals(pool.alive, true);
    assertPushBitmaps(await pool.renderImage(source));
  } finally {
    await pool.close();
  }
});

Deno.test("render pool without resting workers: a worker that dies while starting is replaced once", async () => {
  const pool = await createRenderPool({ threads: 1, restingThreads: 0 });
  try {
    const source = await encodeRgb(photoLike(320, 200), 320, 200, "jpeg");
    const rendering = pool.renderImage(source);
    // The render started a worker; it is stopped before it is ready.
    assertEquals(pool.threads, 1);
    await pool.workerThreads[0].terminate();
    // The task waited in the queue and runs on the replacement, well before its deadline.
    assertPushBitmaps(await rendering);
    assertEquals(pool.alive, true);
  } finally {
    await pool.close();
  }
});

Deno.test("render pool without resting workers: a render announced early finds its worker warm", async () => {
  // An upload ticket or an HTML screen's capture (issue 40): one worker per render announced and
  // not yet started, at most the pool's size; the renders that follow run on them.
  const pool = await createRenderPool({ threads: 2, restingThreads: 0, idleTimeoutMs: 60_000 });
  try {
    await pool.prewarm();
    assertEquals([pool.threads, pool.readyThreads], [1, 1]);
    const source = await encodeRgb(photoLike(320, 200), 320, 200, "jpeg");
    // Its render takes the announcement: the next render announced needs no other worker.
    assertPushBitmaps(await pool.renderImage(source));
    await pool.prewarm();
    assertEquals(pool.threads, 1);
    // Two announced at once (a second upload before the first render): a second worker, warm
    // before either render comes, and never more workers than the pool's size.
    await Promise.all([pool.prewarm(), pool.prewarm()]);
    assertEquals(pool.threads, 2);
    for (let i = 0; i < 200 && pool.readyThreads < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assertEquals(pool.readyThreads, 2);
    await pool.prewarm();
    assertEquals(pool.threads, 2);
    const renders = [source, source, source].map((s) => pool.renderImage(s));
    for (const render of renders) assertPushBitmaps(await render);
    assertEquals(pool.threads, 2);
  } finally {
    await pool.close();
  }
});

Deno.test("render pool without resting workers: an announcement lapses", async () => {
  // An upload never confirmed: after the idle time its announcement no longer counts.
  const pool = await createRenderPool({ threads: 2, restingThreads: 0, idleTimeoutMs: 500 });
  try {
    await Promise.all([pool.prewarm(), pool.prewarm()]);
    assertEquals(pool.threads, 2);
    while (pool.threads > 0) await new Promise((r) => setTimeout(r, 50));
    // Both lapsed: one announced now, taken by its render, and the next needs no second worker.
    await pool.prewarm();
    assertPushBitmaps(await pool.renderImage(await encodeRgb(photoLike(64, 48), 64, 48, "jpeg")));
    await pool.prewarm();
    assertEquals(pool.threads, 1);
  } finally {
    await pool.close();
  }
});
