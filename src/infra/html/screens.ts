/**
 * HTML screens, the one entry point (CONTRACT.md "Screens that keep themselves current"): a
 * plugin's markup laid in the page shell, drawn by the warm Chromium at the panel's upright size,
 * then toned, dithered (pictures only) and packed by the render pool like an image push for that
 * panel. Domain-free: the caller brings rendered markup and a panel.
 */
import { HtmlBrowser, type HtmlBrowserOptions } from "./browser.ts";
import { readFrameworkCss, type ScreenContent, screenDocument } from "./shell.ts";
import type { DitherKernel } from "../render/dither.ts";
import {
  type PanelSpec,
  type PushBitmaps,
  type RenderCall,
  type Renderer,
  uprightSize,
} from "../render/types.ts";

export interface HtmlScreensOptions extends HtmlBrowserOptions {
  /** The render pool that dithers and packs the screenshots. */
  renderer: Pick<Renderer, "renderScreen" | "previewScreen" | "prewarm">;
  /** `SCREEN_FRAMEWORK_CSS`: a stylesheet file replacing the built-in one, read once. */
  frameworkCssPath?: string;
}

/** One screen to draw. */
export interface ScreenDrawRequest {
  /** One view's markup (default view `full`) or a mashup's, as HTML (Liquid already rendered). */
  content: ScreenContent;
  panel: PanelSpec;
  /** Wall-clock limit of the page's drawing; default 20 s. */
  deadlineMs?: number;
  /** The caller went away (a preview's request closed). */
  signal?: AbortSignal;
  /** Error diffusion of pictures; default `PHOTO_DITHER`. */
  dither?: DitherKernel;
  /** trmnlp's `no_screen_padding` and `dark_mode`. */
  noScreenPadding?: boolean;
  darkMode?: boolean;
  /** IANA time zone and locale the page's scripts see (the user's). */
  timeZone?: string;
  locale?: string;
  /** The render pool's scheduling: the user a preview is for (absent: a job). */
  previewOf?: string;
}

/**
 * Draws HTML screens. Rejects with `RenderUnavailable` when busy (503 with `Retry-After`),
 * closed or Chromium cannot start, `RenderRejected` `timed_out` past the deadline (503 for a
 * preview; a job fails for good): `toHttpError` maps both.
 */
export class HtmlScreens {
  readonly browser: HtmlBrowser;
  readonly #renderer: HtmlScreensOptions["renderer"];
  readonly #cssPath?: string;
  #stylesheet?: Promise<string | undefined>;

  constructor(options: HtmlScreensOptions) {
    this.browser = new HtmlBrowser(options);
    this.#renderer = options.renderer;
    this.#cssPath = options.frameworkCssPath;
  }

  /** The stylesheet in use: the operator's file (read on first use), else the built-in one. */
  stylesheet(): Promise<string | undefined> {
    this.#stylesheet ??= this.#cssPath
      ? readFrameworkCss(this.#cssPath)
      : Promise.resolve(undefined);
    return this.#stylesheet;
  }

  /** The whole page of a request, as drawn (the preview tool shows it). */
  async page(request: ScreenDrawRequest): Promise<string> {
    return screenDocument(request.content, uprightSize(request.panel), request.panel.bitDepth, {
      stylesheet: await this.stylesheet(),
      noScreenPadding: request.noScreenPadding,
      darkMode: request.darkMode,
    });
  }

  /** The push formats of a screen (`image.png` at the panel's depth, `raw2`, `raw4`). */
  async draw(request: ScreenDrawRequest): Promise<PushBitmaps> {
    const { screenshot, pictures, call } = await this.#capture(request);
    return await this.#renderer.renderScreen(
      { screenshot, pictures, panel: request.panel, dither: request.dither },
      call,
    );
  }

  /** A screen's `image.png` alone, for a preview. */
  async preview(request: ScreenDrawRequest): Promise<Uint8Array> {
    const { screenshot, pictures, call } = await this.#capture(request);
    return await this.#renderer.previewScreen(
      { screenshot, pictures, panel: request.panel, dither: request.dither },
      call,
    );
  }

  async #capture(request: ScreenDrawRequest) {
    // The pool's worker starts (if none runs) while Chromium draws.
    void this.#renderer.prewarm?.();
    const { width, height } = uprightSize(request.panel);
    const capture = await this.browser.capture({
      html: await this.page(request),
      width,
      height,
      deadlineMs: request.deadlineMs,
      signal: request.signal,
      timeZone: request.timeZone,
      locale: request.locale,
    });
    const call: RenderCall = { signal: request.signal, previewOf: request.previewOf };
    return { screenshot: capture.png, pictures: capture.pictures, call };
  }

  /** Closes Chromium (at shutdown, before the render pool). */
  close(): Promise<void> {
    return this.browser.close();
  }
}
