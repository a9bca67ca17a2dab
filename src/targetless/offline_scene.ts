/**
 * The offline model's `targetless.scene` behaviour (CONTRACT.md: deterministic, no network): a
 * plain layout of the brief that always fits its viewport. A title line over a rule, pictures
 * (a grid of up to four) beside the text on wide viewports and above it on tall ones, and the
 * body text at the largest size that fits its box. Same brief, same Scene.
 */
import type { ModelRequest, ModelResponse, OfflineTask } from "../ai/model.ts";
import {
  type Frame,
  SCENE_LIMITS,
  type SceneData,
  type SceneElement,
} from "../render/scene/types.ts";
import { briefOf, SCENE_TOOL, type SceneBrief } from "./scene_prompt.ts";

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const LINE = 1.25;

/** East Asian wide characters take about one em; the rest about 0.55. */
function emWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    width += (code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0xa4cf) ||
        (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) ||
        (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) ||
        (code >= 0x20000 && code <= 0x3fffd)
      ? 1
      : 0.55;
  }
  return width;
}

/** The largest font size whose wrapped lines fit `box` (estimated; overflow ends in "…"). */
export function fitFontSize(text: string, box: { width: number; height: number }, max: number) {
  const min = Math.min(10, max);
  for (let size = Math.floor(max); size > min; size--) {
    // Words wrap before the edge: about an eighth of each line stays empty.
    const perLine = (box.width * 0.88) / size;
    const lines = text.split("\n").reduce(
      (n, paragraph) => n + Math.max(1, Math.ceil(emWidth(paragraph) / perLine)),
      0,
    );
    if (lines * size * LINE <= box.height) return size;
  }
  return min;
}

function bodyText(brief: SceneBrief): string {
  const parts = [...brief.texts.map((t) => t.trim()).filter(Boolean)];
  for (const link of brief.links) {
    const summary = link.description || link.text.split("\n").slice(0, 6).join("\n");
    parts.push(
      [link.title && link.title !== brief.title ? link.title : "", summary]
        .filter(Boolean).join("\n"),
    );
  }
  const body = parts.filter(Boolean).join("\n\n");
  // Nothing to show but the request itself: the intent is the text.
  const text = body || (brief.images.length === 0 ? brief.intent.trim() : "");
  // SPEC 2.11 text limit of the normaliser, cut on a code point boundary.
  return Array.from(text).slice(0, SCENE_LIMITS.textLength).join("");
}

function imageElements(brief: SceneBrief, area: Frame, gap: number, most: number) {
  const images = brief.images.slice(0, most);
  const cols = Math.ceil(Math.sqrt(images.length));
  const rows = Math.ceil(images.length / cols);
  const cellW = Math.floor((area.width - gap * (cols - 1)) / cols);
  const cellH = Math.floor((area.height - gap * (rows - 1)) / rows);
  return images.map((image, i): SceneElement => {
    const cell = {
      x: area.x + (i % cols) * (cellW + gap),
      y: area.y + Math.floor(i / cols) * (cellH + gap),
      width: Math.max(1, cellW),
      height: Math.max(1, cellH),
    };
    // A picture close to its cell's shape fills it; any other is shown whole, at the top of
    // its cell (centred across), so it lines up with the text beside it.
    const aspect = image.width && image.height ? image.width / image.height : null;
    let frame = cell;
    let fit = "contain";
    if (aspect !== null) {
      if (Math.abs(Math.log(aspect / (cell.width / cell.height))) < 0.25) fit = "cover";
      else if (aspect > cell.width / cell.height) {
        frame = { ...cell, height: Math.max(1, Math.round(cell.width / aspect)) };
      } else {
        const width = Math.max(1, Math.round(cell.height * aspect));
        frame = { ...cell, x: cell.x + Math.floor((cell.width - width) / 2), width };
      }
    }
    return {
      id: `image-${i + 1}`,
      type: "image",
      frame,
      properties: { fileId: image.fileId, fit },
    };
  });
}

/** Lays out a brief as Scene v1 data. */
export function layoutScene(brief: SceneBrief): SceneData {
  const { width: W, height: H } = brief.viewport;
  let margin = Math.max(4, Math.round(Math.min(W, H) * 0.05));
  if (W - 2 * margin < 8 || H - 2 * margin < 8) margin = 0;
  const elements: SceneElement[] = [];
  const title = (brief.title || brief.links[0]?.title || "").trim();
  const titleSize = clamp(Math.round(Math.min(H * 0.1, W * 0.075)), 12, 64);
  const titleHeight = Math.ceil(titleSize * LINE);
  let top = margin;
  const inner = W - 2 * margin;
  if (title && titleHeight * 2 <= H - 2 * margin) {
    elements.push({
      id: "title",
      type: "text",
      frame: { x: margin, y: top, width: inner, height: titleHeight },
      properties: { text: title, fontSize: titleSize, fontWeight: 700, color: "#111111" },
    });
    top += titleHeight + Math.max(2, Math.round(margin / 3));
    const rule = Math.max(1, Math.round(titleSize / 16));
    elements.push({
      id: "title-rule",
      type: "shape",
      frame: { x: margin, y: top, width: inner, height: rule },
      properties: { shapeType: "rect", fill: "#111111" },
    });
    top += rule + Math.max(2, Math.round(margin / 2));
  }
  const area: Frame = {
    x: margin,
    y: top,
    width: Math.max(1, inner),
    height: Math.max(1, H - margin - top),
  };
  const text = bodyText(brief);
  const gap = margin === 0 ? 0 : Math.max(4, margin);
  // Too small to share: the picture alone.
  const roomy = area.width >= 48 && area.height >= 48;
  let textBox: Frame | null = text && (brief.images.length === 0 || roomy) ? area : null;
  if (brief.images.length > 0) {
    let imageBox = area;
    if (textBox) {
      if (area.width >= area.height) {
        const w = Math.round((area.width - gap) * 0.45);
        imageBox = { ...area, width: Math.max(1, w) };
        textBox = { ...area, x: area.x + w + gap, width: Math.max(1, area.width - w - gap) };
      } else {
        const h = Math.round((area.height - gap) * 0.5);
        imageBox = { ...area, height: Math.max(1, h) };
        textBox = { ...area, y: area.y + h + gap, height: Math.max(1, area.height - h - gap) };
      }
    }
    elements.push(...imageElements(brief, imageBox, roomy ? gap : 0, roomy ? 4 : 1));
  }
  if (textBox && text) {
    const max = Math.max(12, Math.round(titleSize * 0.75));
    elements.push({
      id: "body",
      type: "text",
      frame: textBox,
      properties: { text, fontSize: fitFontSize(text, textBox, max), color: "#222222" },
    });
  }
  return { version: 1, viewport: { width: W, height: H }, background: "#FFFFFF", elements };
}

/** The offline behaviour of `targetless.scene`: one `emit_scene` call with the layout. */
export const offlineSceneTask: OfflineTask = (request: ModelRequest): ModelResponse => {
  const brief = briefOf(request);
  const input = brief ? layoutScene(brief) : null;
  return {
    content: [{ type: "tool_use", id: "offline-scene", name: SCENE_TOOL, input }],
    stopReason: "tool_use",
    usage: { inputTokens: 0, outputTokens: 0 },
    model: "offline",
  };
};
