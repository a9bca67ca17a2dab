/**
 * The offline model's `targetless.scene` behaviour (CONTRACT.md: deterministic, no network): a
 * designed layout of the brief for any viewport, in the visual language of the push templates.
 *
 * - Text alone: the words are the picture, as large as the frame allows, centred when short.
 * - Title and body: a bold title over a short accent rule, the body below, the block centred.
 * - A link: its host as a small label over its title and description.
 * - Pictures alone fill the frame (a grid of up to four); with text, the picture takes one side
 *   of a wide frame or the top of a tall one, edge to edge, and the text the rest.
 *
 * Every size follows the viewport's short side; text sizes are fitted with the renderer's own
 * line breaking (`text_fit.ts`), so text is never cut unless even the smallest size cannot hold
 * it. Same brief, same Scene.
 */
import type { ModelRequest, ModelResponse, OfflineTask } from "../../infra/ai/model.ts";
import {
  type Frame,
  SCENE_LIMITS,
  type SceneData,
  type SceneElement,
} from "../../infra/render/scene/types.ts";
import { briefOf, SCENE_TOOL, type SceneBrief } from "./scene_prompt.ts";
import {
  balancedWidth,
  LINE_HEIGHT,
  type PreparedText,
  prepareText,
  tidyText,
  wrapPrepared,
} from "./text_fit.ts";

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** The colours of one colour mode. 1-bit output gets pure black on white: nothing to dither. */
interface Theme {
  background: string;
  ink: string;
  accent: string;
}

/** Accents for colour output, deep enough to read as text on the paper background. */
const ACCENTS = ["#C2410C", "#1D4ED8", "#047857", "#7C3AED", "#BE123C", "#0E7490"];

/** FNV-1a: a stable pick of the accent from the content's words. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function themeOf(brief: SceneBrief, seed: string): Theme {
  if (brief.colorMode === "monochrome") {
    return { background: "#FFFFFF", ink: "#000000", accent: "#000000" };
  }
  if (brief.colorMode === "grayscale") {
    return { background: "#FFFFFF", ink: "#111111", accent: "#111111" };
  }
  return {
    background: "#FAF7F2",
    ink: "#1F2328",
    accent: ACCENTS[hash(seed) % ACCENTS.length],
  };
}

/** The words of a Scene: a small label, a title and a body; any may be empty. */
interface Copy {
  label: string;
  title: string;
  body: string;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return "";
  }
}

/** Cut on a code point boundary, with an ellipsis when anything was left out. */
function cut(text: string, most: number): string {
  const chars = Array.from(text);
  return chars.length <= most ? text : chars.slice(0, most - 1).join("").trimEnd() + "\u2026";
}

function copyOf(brief: SceneBrief): Copy {
  const link = brief.links[0];
  const title = tidyText(brief.title || link?.title || "");
  const parts = brief.texts.map(tidyText).filter(Boolean);
  for (const l of brief.links) {
    const linkTitle = tidyText(l.title);
    const summary = tidyText(l.description || l.text.split("\n").slice(0, 6).join("\n"));
    parts.push(
      [linkTitle && linkTitle !== title ? linkTitle : "", summary].filter(Boolean).join("\n"),
    );
  }
  let body = parts.filter(Boolean).join("\n\n");
  // Nothing to show but the request itself: the intent is the text.
  if (!title && !body && brief.images.length === 0) body = tidyText(brief.intent);
  return {
    label: link ? hostOf(link.url) : "",
    title: cut(title, 200),
    // SPEC 2.11 text limit of the normaliser.
    body: cut(body, SCENE_LIMITS.textLength),
  };
}

/** One line's height as the renderer draws it (whole pixels) and as its line clamp counts it. */
function blockHeight(lines: number, size: number): number {
  const line = size * LINE_HEIGHT;
  return Math.max(lines * Math.round(line), Math.ceil(lines * line));
}

interface Piece {
  id: "label" | "title" | "rule" | "body";
  prepared: PreparedText;
  text: string;
  size: number;
  /** Lines of text; for the rule, its thickness. */
  lines: number;
  color: string;
  /** Space below it, to the next piece. */
  gapAfter: number;
}

const heightOf = (p: Piece) => p.id === "rule" ? p.lines : blockHeight(p.lines, p.size);
const totalOf = (pieces: Piece[]) => pieces.reduce((sum, p) => sum + heightOf(p) + p.gapAfter, 0);

/**
 * Lays out the copy in `box`: the largest sizes at which everything fits, the block centred
 * (a little above the middle, where the eye puts it). `unit` is the viewport's short side;
 * `hero` says the words are all there is, so they may be set as large as a poster's.
 */
function textBlock(copy: Copy, box: Frame, unit: number, theme: Theme, hero: boolean) {
  const single = !(copy.title && copy.body);
  const main = copy.title || copy.body;
  const smallest = Math.max(
    1,
    Math.min(smallestSize(unit), Math.floor(box.height / LINE_HEIGHT)),
  );
  // A short note alone is set bold and large; a long one regular.
  const heavy = !!copy.title || Array.from(main).length <= 60;
  const title = prepareText(main, single ? heavy : true);
  const body = prepareText(single ? "" : copy.body, false);
  const label = prepareText(copy.label, true);
  const largest = Math.max(smallest, Math.round(unit * (single ? (hero ? 0.2 : 0.14) : 0.11)));
  // The largest size at which the title stays on one line.
  const titleEms = main.includes("\n")
    ? Infinity
    : title.words.reduce((sum, w) => sum + w.ems, 0) - (title.words.at(-1)?.hanging ?? 0);
  const oneLine = Math.floor(box.width / titleEms);

  // The widest word of each text, in ems: a size at which a word no longer fits its line would
  // cut the word in two.
  const longest = (p: PreparedText) => Math.max(0, ...p.words.map((w) => w.ems - w.hanging));
  const titleWord = longest(title);
  const bodyWord = longest(body);

  const plan = (size: number, forced: boolean): Piece[] | null => {
    let titleSize = size;
    if (!single) {
      titleSize = Math.round(size * 1.3);
      // A short title stays on one line when that costs it little, and stays the larger.
      if (oneLine >= titleSize * 0.7) titleSize = Math.min(titleSize, oneLine);
      if (titleSize < size * 1.15 && !forced) return null;
      titleSize = Math.max(titleSize, size);
    }
    if (!forced && (titleWord * titleSize > box.width || bodyWord * size > box.width)) return null;
    const pieces: Piece[] = [];
    if (copy.label) {
      const size = Math.max(Math.min(smallest, 12), Math.round(titleSize * 0.5));
      pieces.push({
        id: "label",
        prepared: label,
        text: copy.label,
        size,
        lines: 1,
        color: theme.accent,
        gapAfter: Math.round(size * 0.5),
      });
    }
    const titleLines = wrapPrepared(title, box.width, titleSize).length;
    if (!single && titleLines > 2 && !forced) return null;
    pieces.push({
      id: single && !copy.title ? "body" : "title",
      prepared: title,
      text: main,
      size: titleSize,
      lines: single ? titleLines : Math.min(2, titleLines),
      color: theme.ink,
      gapAfter: single ? 0 : Math.round(titleSize * 0.35),
    });
    if (!single) {
      pieces.push({
        id: "rule",
        prepared: body,
        text: "",
        size: 0,
        lines: Math.max(2, Math.round(titleSize * 0.09)),
        color: theme.accent,
        gapAfter: Math.round(size * 0.75),
      });
      pieces.push({
        id: "body",
        prepared: body,
        text: copy.body,
        size,
        lines: wrapPrepared(body, box.width, size).length,
        color: theme.ink,
        gapAfter: 0,
      });
    }
    if (totalOf(pieces) <= box.height) return pieces;
    if (!forced) return null;
    // Even the smallest size does not hold it all: the last block keeps the lines there is
    // room for (the renderer ends it with an ellipsis), or goes when not one line is left.
    while (pieces.length > 0 && totalOf(pieces) > box.height) {
      const last = pieces[pieces.length - 1];
      const over = totalOf(pieces) - box.height;
      const fewer = last.lines - Math.ceil(over / Math.round(last.size * LINE_HEIGHT));
      if (last.id !== "rule" && fewer >= 1) last.lines = fewer;
      else {
        pieces.pop();
        if (pieces.at(-1)?.id === "rule") pieces.pop();
        if (pieces.length) pieces[pieces.length - 1].gapAfter = 0;
      }
    }
    return pieces;
  };

  // The largest size that fits (a binary search: text only grows with its size).
  let pieces: Piece[] | null = plan(largest, false);
  if (!pieces) {
    let [lo, hi] = [smallest, largest];
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const fits = plan(mid, false);
      if (fits) [lo, pieces] = [mid, fits];
      else hi = mid;
    }
  }
  pieces ??= plan(smallest, false) ?? plan(smallest, true)!;
  // No room for the body at all: the title alone, sized for the room it has.
  if (!single && !pieces.some((p) => p.id === "body")) {
    return textBlock({ ...copy, body: "" }, box, unit, theme, hero);
  }

  // Short text alone is centred; anything longer reads from a left edge.
  const centred = hero && single && !copy.label && pieces.every((p) => p.lines <= 3);
  let y = box.y + Math.max(0, Math.round((box.height - totalOf(pieces)) * 0.45));
  const titleSize = pieces.find((p) => p.id === "title")?.size ?? 0;
  const elements: SceneElement[] = [];
  for (const piece of pieces) {
    const height = heightOf(piece);
    if (piece.id === "rule") {
      elements.push({
        id: "rule",
        type: "shape",
        frame: { x: box.x, y, width: Math.min(box.width, Math.round(titleSize * 1.6)), height },
        properties: { shapeType: "rect", fill: piece.color, cornerRadius: Math.floor(height / 2) },
      });
    } else {
      // Headings break into lines of even length; body text fills its lines.
      const width = piece.id === "body" && !single
        ? box.width
        : Math.min(box.width, balancedWidth(piece.prepared, box.width, piece.size) + 1);
      const bold = piece.id !== "body" || heavy && single;
      elements.push({
        id: piece.id,
        type: "text",
        frame: {
          x: centred ? box.x + Math.floor((box.width - width) / 2) : box.x,
          y,
          width: Math.max(1, width),
          height,
        },
        properties: {
          text: piece.text,
          fontSize: piece.size,
          fontWeight: bold ? 700 : 400,
          color: piece.color,
          align: centred ? "center" : "leading",
        },
      });
    }
    y += height + piece.gapAfter;
  }
  return elements;
}

/** The smallest text size for a viewport: small widgets read at 11, large screens at 20. */
function smallestSize(unit: number): number {
  return clamp(Math.round(unit * 0.04) + 4, 10, 20);
}

/**
 * Pictures in `area`: one fills it; two to four share it in a grid, `gap` apart. A picture alone
 * whose shape differs from its place by more than `tolerance` is shown whole instead of cut.
 */
function pictures(brief: SceneBrief, area: Frame, gap: number, tolerance: number) {
  const images = brief.images.slice(0, 4);
  // Cells of a grid are always filled.
  const single = images.length === 1;
  const cells: Frame[] = [];
  const { x, y, width: w, height: h } = area;
  const half = (n: number) => Math.max(1, Math.floor((n - gap) / 2));
  const wide = w >= h;
  if (images.length === 1) cells.push(area);
  else if (images.length === 2) {
    if (wide) {
      cells.push({ x, y, width: half(w), height: h }, {
        x: x + w - half(w),
        y,
        width: half(w),
        height: h,
      });
    } else {cells.push({ x, y, width: w, height: half(h) }, {
        x,
        y: y + h - half(h),
        width: w,
        height: half(h),
      });}
  } else if (images.length === 3) {
    // One large, two small beside (or under) it.
    if (wide) {
      const big = Math.max(1, Math.round((w - gap) * 0.6));
      const rest = Math.max(1, w - big - gap);
      cells.push(
        { x, y, width: big, height: h },
        { x: x + w - rest, y, width: rest, height: half(h) },
        { x: x + w - rest, y: y + h - half(h), width: rest, height: half(h) },
      );
    } else {
      const big = Math.max(1, Math.round((h - gap) * 0.6));
      const rest = Math.max(1, h - big - gap);
      cells.push(
        { x, y, width: w, height: big },
        { x, y: y + h - rest, width: half(w), height: rest },
        { x: x + w - half(w), y: y + h - rest, width: half(w), height: rest },
      );
    }
  } else {
    for (let i = 0; i < 4; i++) {
      cells.push({
        x: i % 2 ? x + w - half(w) : x,
        y: i < 2 ? y : y + h - half(h),
        width: half(w),
        height: half(h),
      });
    }
  }
  return images.map((image, i): SceneElement => {
    const cell = cells[i];
    const aspect = image.width && image.height ? image.width / image.height : null;
    const fit = single && aspect &&
        Math.abs(Math.log(aspect / (cell.width / cell.height))) > Math.log(tolerance)
      ? "contain"
      : "cover";
    return {
      id: `image-${i + 1}`,
      type: "image",
      frame: cell,
      properties: { fileId: image.fileId, fit },
    };
  });
}

/** Space between the frame's edges and the text, across and down. */
interface Margin {
  x: number;
  y: number;
}

/** Where the picture goes beside text: one side of the frame, or its top. */
function split(W: number, H: number, aspect: number, margin: Margin, smallest: number) {
  const sideWidth = clamp(Math.round(H * aspect), Math.round(W * 0.36), Math.round(W * 0.5));
  const side = {
    pane: { x: 0, y: 0, width: sideWidth, height: H },
    text: {
      x: sideWidth + margin.x,
      y: margin.y,
      width: W - sideWidth - 2 * margin.x,
      height: H - 2 * margin.y,
    },
  };
  const topHeight = clamp(Math.round(W / aspect), Math.round(H * 0.45), Math.round(H * 0.62));
  const space = Math.round(margin.y * 0.8);
  const top = {
    pane: { x: 0, y: 0, width: W, height: topHeight },
    text: {
      x: margin.x,
      y: topHeight + space,
      width: W - 2 * margin.x,
      height: H - topHeight - space - margin.y,
    },
  };
  // A wide frame puts the picture beside the text; so does a squarish one with a portrait
  // picture, when the text still has room for a few words a line.
  const wide = W >= H * 1.25 || (aspect < 0.8 && W >= H * 0.8 && side.text.width >= smallest * 6);
  return wide ? { ...side, divider: { x: sideWidth, y: 0, width: 1, height: H } } : {
    ...top,
    divider: { x: 0, y: topHeight, width: W, height: 1 },
  };
}

/** Lays out a brief as Scene v1 data. */
export function layoutScene(brief: SceneBrief): SceneData {
  const { width: W, height: H } = brief.viewport;
  const copy = copyOf(brief);
  const theme = themeOf(brief, `${copy.title}\n${copy.body}\n${copy.label}`);
  const unit = Math.min(W, H);
  // Margins grow with the frame, a little wider at the sides of a wide one (48 px at 800x480,
  // as the push templates have; 16 px on a small widget, as macOS has).
  const y = Math.round(unit * 0.07 + 4);
  const x = Math.round(y * clamp(W / H, 1, 1.25));
  const margin: Margin = W - 2 * x < 8 || H - 2 * y < 8 ? { x: 0, y: 0 } : { x, y };
  const elements: SceneElement[] = [];
  const hasText = !!(copy.title || copy.body);
  const gap = Math.max(1, Math.round(unit * 0.02));
  const viewport: Frame = { x: 0, y: 0, width: W, height: H };
  const inset: Frame = {
    x: margin.x,
    y: margin.y,
    width: Math.max(1, W - 2 * margin.x),
    height: Math.max(1, H - 2 * margin.y),
  };

  if (brief.images.length === 0) {
    if (hasText) elements.push(...textBlock(copy, inset, unit, theme, true));
  } else {
    // The picture's own shape decides where it goes and how much room it takes, within limits.
    const first = brief.images[0];
    const aspect = brief.images.length === 1 && first.width && first.height
      ? first.width / first.height
      : 1;
    const smallest = smallestSize(unit);
    const { pane, text, divider } = split(W, H, aspect, margin, smallest);
    if (!hasText || text.width < smallest * 4 || text.height < smallest * LINE_HEIGHT) {
      elements.push(...pictures(brief, viewport, gap, 1.8));
    } else {
      elements.push(...pictures(brief, pane, gap, 2.5));
      // Grey and 1-bit output: a hairline keeps a light picture from running into the page.
      if (brief.colorMode !== "color") {
        const thickness = Math.max(1, Math.round(unit / 240));
        elements.push({
          id: "divider",
          type: "shape",
          frame: divider.width === 1
            ? { ...divider, x: divider.x - thickness, width: thickness }
            : { ...divider, y: divider.y - thickness, height: thickness },
          properties: { shapeType: "rect", fill: theme.ink },
        });
      }
      elements.push(...textBlock(copy, text, unit, theme, false));
    }
  }
  return { version: 1, viewport: { width: W, height: H }, background: theme.background, elements };
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
