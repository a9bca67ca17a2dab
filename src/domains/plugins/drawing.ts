/**
 * How a plugin's view becomes a picture (CONTRACT.md): its Liquid markup (`shared` laid before the
 * view's own) rendered with the data in TRMNL's variables, laid in TRMNL's page shell for the
 * panel's grey depth, and drawn by the HTML screen painter (headless Chromium, no network, then
 * toned, dithered by region and packed by the render pool for the panel).
 */
import { AppError } from "../../errors.ts";
import type { PanelSpec, PushBitmaps } from "../../infra/render/types.ts";
import { toHttpError } from "../../infra/render/errors.ts";
import type { HtmlScreens } from "../../infra/html/screens.ts";
import type { MashupLayout, ScreenContent } from "../../infra/html/shell.ts";
import { trmnlContext } from "../../infra/liquid/context.ts";
import type { PluginView } from "./inputs.ts";
import type { PluginRow } from "./tables.ts";

/** One page to draw: a plugin's view with the data it sees, for a panel. */
export interface PluginPage {
  plugin: PluginRow;
  view: PluginView;
  variables: Record<string, unknown>;
  panel: PanelSpec;
}

/** TRMNL's Liquid dialect, rendered off the request loop (the render pool's `liquid` task). */
export interface LiquidDialect {
  /** HTML of `markup` with `context`; throws a message the caller shows as 400. */
  render(markup: string, context: Record<string, unknown>): Promise<string>;
}

/** What draws an HTML screen for a panel (src/infra/html/screens.ts `HtmlScreens`). */
export type ScreenPainter = Pick<HtmlScreens, "draw" | "preview">;

const MARKUP_KEYS = {
  full: "full",
  half_horizontal: "halfHorizontal",
  half_vertical: "halfVertical",
  quadrant: "quadrant",
} as const;

/** A view's markup: its own, or the full view's when the plugin has none for it. */
export function viewMarkup(plugin: PluginRow, view: PluginView): string {
  const markup = plugin.markup;
  const own = markup[MARKUP_KEYS[view]] ?? markup.full;
  return (markup.shared ?? "") + own;
}

/** TRMNL's variables for a page: its merge variables, and `trmnl` (user, device, plugin). */
export function contextOf(page: PluginPage, now = new Date()): Record<string, unknown> {
  const { plugin, panel } = page;
  return trmnlContext({
    mergeVariables: page.variables,
    user: { name: "" },
    device: { width: panel.width, height: panel.height },
    customFieldsValues: plugin.custom_fields,
    plugin: { instanceName: plugin.name, strategy: plugin.strategy },
    now,
  });
}

export class PluginDrawing {
  constructor(
    private readonly liquid: LiquidDialect,
    private readonly screens: ScreenPainter,
  ) {}

  /** Liquid in a polling URL, header or body, filled from the custom fields. */
  async fill(text: string, customFields: Record<string, unknown>): Promise<string> {
    if (!text.includes("{")) return text;
    return await this.liquid.render(text, {
      ...customFields,
      trmnl: { plugin_settings: { custom_fields_values: customFields } },
    });
  }

  /** A view's markup rendered with its data; 400 when the markup does not render. */
  async markup(page: PluginPage): Promise<string> {
    try {
      return await this.liquid.render(viewMarkup(page.plugin, page.view), contextOf(page));
    } catch (error) {
      if (error instanceof AppError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new AppError("invalid_request", `The markup does not render: ${message}`);
    }
  }

  /** What fills the screen: one page's view, or a mashup's pages in reading order. */
  async content(pages: PluginPage[], mashup?: MashupLayout): Promise<ScreenContent> {
    const markups = await Promise.all(pages.map((page) => this.markup(page)));
    return mashup ? { mashup, markups } : { view: pages[0].view, markup: markups[0] };
  }

  /** The preview PNG of exactly the panel. */
  async preview(
    userId: string,
    content: ScreenContent,
    panel: PanelSpec,
    signal?: AbortSignal,
  ): Promise<Uint8Array> {
    try {
      return await this.screens.preview({ content, panel, previewOf: userId, signal });
    } catch (error) {
      throw toHttpError(error);
    }
  }

  /**
   * A push's bitmaps for the panel. The same content for the same panel is drawn once: the
   * pushes of every device showing it (a playlist on many displays) share that one drawing.
   */
  async bitmaps(content: ScreenContent, panel: PanelSpec): Promise<PushBitmaps> {
    const key = await drawingKey(content, panel);
    const cached = this.drawn.get(key);
    if (cached) return await cached;
    const drawing = this.screens.draw({ content, panel });
    this.drawn.set(key, drawing);
    // A failed drawing is not kept: the next push tries again.
    drawing.catch(() => this.drawn.delete(key));
    while (this.drawn.size > SHARED_DRAWINGS) this.drawn.delete(this.drawn.keys().next().value!);
    return await drawing;
  }

  /** Drawings by content and panel, newest last (a small LRU). */
  private readonly drawn = new Map<string, Promise<PushBitmaps>>();
}

/** Drawings kept for sharing: a few playlists' items at a few panel profiles. */
const SHARED_DRAWINGS = 16;

/** SHA-256 of the content and the panel it is drawn for. */
async function drawingKey(content: ScreenContent, panel: PanelSpec): Promise<string> {
  const text = JSON.stringify([
    content,
    panel.width,
    panel.height,
    panel.bitDepth,
    panel.rotation ?? 0,
  ]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return new Uint8Array(digest).toHex();
}
