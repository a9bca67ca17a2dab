/**
 * Piscina worker entry: all CPU work of a render runs here, off the request loop (ARCHITECTURE:
 * uploaded images, push templates and Scene renditions). Failures come back as `{ok: false,
 * code}` values (custom errors lose their fields crossing threads); output buffers are
 * transferred, not copied.
 */
// First: the thread is lowered before the imports below are evaluated (lower_priority.ts).
import "./lower_priority.ts";
import { renderImageBitmaps } from "../src/infra/render/bitmaps.ts";
import {
  bitmapsReply,
  fromWireImages,
  pngReply,
  type RenderTask,
  WARM_UP_PNG,
  type WorkerReply,
} from "../src/infra/render/protocol.ts";
import { inspectImage } from "../src/infra/render/inspect.ts";
import { renderScreenBitmaps } from "../src/infra/render/screen.ts";
import type { LiquidResult, TextTask } from "../src/infra/render/types.ts";
import { renderScene } from "../src/infra/render/scene/render.ts";
import { templateRegistry } from "../src/infra/render/templates/registry.ts";
import { renderTemplateBitmaps } from "../src/infra/render/templates/render.ts";
import type { ModelRequest } from "../src/infra/ai/model.ts";
import { decodeText, extractHtml, extractPlain } from "../src/domains/targetless/links/extract.ts";

/**
 * Checks the templates and warms the image path before the first task. Every schema compiled and
 * every sample checked: a broken template fails the start. The image path (decode, fit, tone,
 * dither, pack, PNG) is what a photo push and an HTML screen take, so a burst after start is warm.
 * The template and Scene drawing (satori, resvg, the fonts) load with their first task instead:
 * ~50 MB of a process at rest and ~0.3 s of its start that a service drawing no template yet does
 * not need (issue 40); that first drawing pays them (STACK.md: satori's first call ~300 ms,
 * resvg's first render ~250 ms).
 */
async function warm(): Promise<void> {
  await templateRegistry().ready();
  const result = await renderImageBitmaps(WARM_UP_PNG);
  if (!result.ok) throw new Error(`render worker warm-up failed: ${result.message}`);
}

/**
 * The offline model's summary loads with the first summary task (issue 26: it brings zod and the
 * content domain's views, ~8 MB of every worker, which renders never use).
 */
let offline: Promise<typeof import("../src/domains/content/offline_summary.ts")> | undefined;

/** TRMNL's Liquid loads with the first plugin markup (no render needs it). */
let liquid: Promise<typeof import("../src/infra/liquid/trmnl.ts")> | undefined;

/**
 * Plugin markup rendered off the request loop: liquidjs renders synchronously, and hostile
 * markup may use its whole time budget.
 */
async function renderLiquid(task: TextTask & { op: "liquid" }): Promise<LiquidResult> {
  const { render, LiquidMarkupError } = await (liquid ??= import("../src/infra/liquid/trmnl.ts"));
  try {
    return { ok: true, html: render(task.markup, task.context, { deadlineMs: task.deadlineMs }) };
  } catch (error) {
    if (error instanceof LiquidMarkupError) return { ok: false, message: error.message };
    throw error;
  }
}

/** A text task's result (plain data, cloned back). */
async function runTextTask(task: TextTask): Promise<unknown> {
  if (task.op === "liquid") return await renderLiquid(task);
  if (task.op === "summary") {
    const { offlineSummarize } = await (offline ??= import(
      "../src/domains/content/offline_summary.ts"
    ));
    return offlineSummarize(task.request as ModelRequest);
  }
  const text = decodeText(new Uint8Array(task.body), task.charset);
  return task.html ? extractHtml(task.url, text) : extractPlain(task.url, text);
}

// Warm before the first task: Piscina loads this module before it tells the pool the worker is
// ready, so a worker started for a burst (or after idle) never gives a render a cold pipeline.
await warm();

/** Runs one task; the reply's buffers move to the calling thread. */
export default async function render(task: RenderTask): Promise<WorkerReply> {
  switch (task.kind) {
    case "warm":
      // Warmed when it loaded (above); the pool's warm task only waits for that.
      return { ok: true };
    case "image": {
      const result = await renderImageBitmaps(new Uint8Array(task.source), task.options);
      if (!result.ok) return { ok: false, code: result.code, message: result.message };
      return bitmapsReply(result.bitmaps);
    }
    case "template": {
      const images = fromWireImages(task.images);
      const result = await renderTemplateBitmaps(templateRegistry(), { ...task.request, images });
      if (!result.ok) return { ok: false, code: result.code, message: result.message };
      return task.pngOnly ? pngReply(result.bitmaps.png) : bitmapsReply(result.bitmaps);
    }
    case "inspect": {
      const result = await inspectImage(new Uint8Array(task.source), task.maxSide);
      if (!result.ok) return { ok: false, code: result.code, message: result.message };
      return pngReply(result.preview, result.facts);
    }
    case "text":
      return { ok: true, value: await runTextTask(task.task) };
    case "screen": {
      const screenshot = new Uint8Array(task.screenshot);
      const result = await renderScreenBitmaps({ ...task.request, screenshot });
      if (!result.ok) return { ok: false, code: result.code, message: result.message };
      return task.pngOnly ? pngReply(result.bitmaps.png) : bitmapsReply(result.bitmaps);
    }
    case "scene": {
      const result = await renderScene({ ...task.request, images: fromWireImages(task.images) });
      if (!result.ok) return { ok: false, code: result.code, message: result.message };
      return pngReply(result.png);
    }
  }
}
