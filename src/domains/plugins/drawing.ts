/**
 * How a plugin's view becomes a picture (CONTRACT.md): its Liquid markup (`shared` laid before the
 * view's own) rendered with the data in TRMNL's variables, laid in TRMNL's page shell for the
 * panel's grey depth, and drawn by the HTML screen painter (headless Chromium, no network, then
 * toned, dithered by region and packed by the render pool for the panel).
 */
import { AppError } from "../../errors.ts";
import type { PanelSpec, PushBitmaps } from "../../infra/render/types.ts";
import type { PluginView } from "./inputs.ts";
import type { PluginRow } from "./service.ts";

/** One page to draw: a plugin's view with the data it sees, for a panel. */
export interface PluginPage {
  plugin: PluginRow;
  view: PluginView;
  variables: Record<string, unknown>;
  panel: PanelSpec;
}

/** A view's markup and the mashup slot it fills (a whole screen here). */
export interface ShellView {
  view: PluginView;
  html: string;
}

/** TRMNL's Liquid dialect (src/infra/liquid/). */
export interface LiquidDialect {
  /** HTML of `markup` with `context`; throws a message the caller shows as 400. */
  render(markup: string, context: Record<string, unknown>): Promise<string>;
}

/** What draws an HTML page for a panel (src/infra/html/). */
export interface ScreenPainter {
  /** The full page of views laid in TRMNL's shell for a grey depth. */
  page(views: ShellView[], bitDepth: 1 | 2 | 4): string;
  /** The panel's PNG (a preview), taking the caller's turn among previews. */
  png(html: string, panel: PanelSpec, options: { previewOf: string; signal?: AbortSignal }):
    Promise<Uint8Array>;
  /** A push's bitmaps: for the panel, or the 800x480 push formats when there is none. */
  bitmaps(html: string, panel: PanelSpec | null): Promise<PushBitmaps>;
}

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

/** TRMNL's variables: the merge variables at the top level, `trmnl` beside them. */
export function trmnlContext(page: PluginPage, now = new Date()): Record<string, unknown> {
  const { plugin, panel } = page;
  return {
    ...page.variables,
    trmnl: {
      user: { name: "", first_name: "", locale: "en", time_zone_iana: "UTC", utc_offset: 0 },
      device: { width: panel.width, height: panel.height, bit_depth: panel.bitDepth },
      plugin_settings: {
        instance_name: plugin.name,
        strategy: plugin.strategy,
        custom_fields_values: plugin.custom_fields,
      },
      system: { timestamp_utc: Math.floor(now.getTime() / 1000) },
    },
  };
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

  /** The whole HTML page of a view with its data; 400 when the markup does not render. */
  async html(page: PluginPage): Promise<string> {
    let html: string;
    try {
      html = await this.liquid.render(viewMarkup(page.plugin, page.view), trmnlContext(page));
    } catch (error) {
      if (error instanceof AppError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new AppError("invalid_request", `The markup does not render: ${message}`);
    }
    return this.screens.page([{ view: page.view, html }], page.panel.bitDepth);
  }

  /** The preview PNG of exactly the page's panel. */
  async preview(userId: string, page: PluginPage, signal?: AbortSignal): Promise<Uint8Array> {
    return await this.screens.png(await this.html(page), page.panel, {
      previewOf: userId,
      signal,
    });
  }

  /** A push's bitmaps (`panel` null: the 800x480 push formats of a device without a panel). */
  async bitmaps(page: PluginPage, panel: PanelSpec | null): Promise<PushBitmaps> {
    return await this.screens.bitmaps(await this.html(page), panel);
  }
}
