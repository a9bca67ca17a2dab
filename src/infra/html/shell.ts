/**
 * The page a plugin's markup is drawn in: TRMNL's shell (`<div class="screen screen--<N>bit">
 * <div class="view view--full">…`), or a mashup of several views in TRMNL's layouts, with the
 * stylesheet inlined and a Content-Security-Policy that allows only inline and data: resources
 * (the browser blocks the network too: browser.ts).
 */
import { FRAMEWORK_CSS } from "./framework_css.ts";
import type { PanelSpec } from "../render/types.ts";

export const SCREEN_VIEWS = ["full", "half_horizontal", "half_vertical", "quadrant"] as const;
export type ScreenView = typeof SCREEN_VIEWS[number];

export const MASHUP_LAYOUTS = [
  "1Lx1R",
  "1Tx1B",
  "1Lx2R",
  "2Lx1R",
  "1Tx2B",
  "2Tx1B",
  "2x2",
] as const;
export type MashupLayout = typeof MASHUP_LAYOUTS[number];

/**
 * The view of each slot of a mashup, in reading order (left to right, then top to bottom): a
 * plugin drawn in a slot uses its markup for that view. `L`/`R` halves are side by side
 * (half_vertical), `T`/`B` halves one above the other (half_horizontal), the rest quadrants.
 */
export const MASHUP_VIEWS: Record<MashupLayout, readonly ScreenView[]> = {
  "1Lx1R": ["half_vertical", "half_vertical"],
  "1Tx1B": ["half_horizontal", "half_horizontal"],
  "1Lx2R": ["half_vertical", "quadrant", "quadrant"],
  "2Lx1R": ["quadrant", "quadrant", "half_vertical"],
  "1Tx2B": ["half_horizontal", "quadrant", "quadrant"],
  "2Tx1B": ["quadrant", "quadrant", "half_horizontal"],
  "2x2": ["quadrant", "quadrant", "quadrant", "quadrant"],
};

/** What fills the screen: one view's markup, or a mashup's markups in reading order. */
export type ScreenContent =
  | { view?: ScreenView; markup: string }
  | { mashup: MashupLayout; markups: readonly string[] };

export interface ScreenPageOptions {
  /** The stylesheet in place of the built-in one (`SCREEN_FRAMEWORK_CSS`'s text). */
  stylesheet?: string;
  /** trmnlp's `no_screen_padding`: the view reaches the panel's edges. */
  noScreenPadding?: boolean;
  /** trmnlp's `dark_mode`: TRMNL's `screen--dark-mode` class. */
  darkMode?: boolean;
}

/** Only inline and data: resources; no connection, frame, form, base or plugin. */
const CSP = [
  "default-src 'none'",
  "img-src data: blob:",
  "media-src data: blob:",
  "font-src data:",
  "style-src 'unsafe-inline' data:",
  "script-src 'unsafe-inline' 'unsafe-eval'",
  "connect-src 'none'",
  "frame-src 'none'",
  "object-src 'none'",
  "form-action 'none'",
  "base-uri 'none'",
].join("; ");

/** A stylesheet's text made safe inside a `<style>` element (it cannot close it early). */
function styleText(css: string): string {
  return css.replace(/<\/style/gi, "<\\/style");
}

/**
 * The design pixel (`--u`, framework_css.ts): 1px at 800x480, scaled with the panel's upright
 * size so a recipe keeps its proportions (2.34px at 1872x1404), never below half.
 */
export function designScale(width: number, height: number): number {
  return Math.max(0.5, Math.round(Math.min(width / 800, height / 480) * 1000) / 1000);
}

/**
 * The whole document of a screen laid out upright at `size` (a panel's `uprightSize`) for
 * `bitDepth`. The markup goes in as the plugin wrote it (it is the user's own page, drawn in an
 * isolated browser context); a mashup with fewer markups than slots leaves the rest empty.
 */
export function screenDocument(
  content: ScreenContent,
  size: { width: number; height: number },
  bitDepth: PanelSpec["bitDepth"],
  options: ScreenPageOptions = {},
): string {
  const classes = ["screen", `screen--${bitDepth}bit`];
  if (options.noScreenPadding) classes.push("screen--no-bleed", "no_screen_padding");
  if (options.darkMode) classes.push("screen--dark-mode");
  let body: string;
  if ("mashup" in content) {
    const views = MASHUP_VIEWS[content.mashup].map((view, i) =>
      `<div class="view view--${view}">${content.markups[i] ?? ""}</div>`
    );
    body = `<div class="mashup mashup--${content.mashup}">${views.join("")}</div>`;
  } else {
    body = `<div class="view view--${content.view ?? "full"}">${content.markup}</div>`;
  }
  const { width, height } = size;
  const vars = `:root{--screen-w:${width}px;--screen-h:${height}px;` +
    `--u:${designScale(width, height)}px}`;
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    `<meta name="viewport" content="width=${width},height=${height}">`,
    `<style>${vars}\n${styleText(options.stylesheet ?? FRAMEWORK_CSS)}</style>`,
    `</head><body><div class="${classes.join(" ")}">${body}</div></body></html>`,
  ].join("\n");
}

/** The operator's stylesheet (`SCREEN_FRAMEWORK_CSS`), read once at start-up. */
export async function readFrameworkCss(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    throw new Error(`SCREEN_FRAMEWORK_CSS ${path} cannot be read: ${(error as Error).message}`);
  }
}
