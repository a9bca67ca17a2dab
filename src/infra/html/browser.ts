/**
 * One warm headless Chromium that turns HTML into a screenshot (CONTRACT.md "Screens that keep
 * themselves current"). Launched on the first render, closed after it idles, launched again when
 * it crashed. Every render gets a fresh browser context (no cookies, storage or cache shared) and
 * reaches no network: Chromium's proxy points at a dead address for every host (loopback too),
 * its resolver answers nothing, the context is offline, every request and WebSocket the page
 * makes is aborted, and the page shell's Content-Security-Policy allows only inline and data:
 * resources. Playwright talks to Chromium over a pipe, so no DevTools port is open.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { RenderRejected, RenderUnavailable } from "../render/errors.ts";
import { RENDER_DEADLINE_MS } from "../render/pool.ts";
import { type ChromiumExecutable, type ChromiumSource, findChromium } from "./executable.ts";
import { writeFontConfig } from "./fonts.ts";
import { collectPictures, type PictureBox } from "./pictures.ts";

export interface HtmlBrowserOptions {
  /** `CHROMIUM_PATH`: the executable to use instead of looking for one. */
  chromiumPath?: string;
  /** How long Chromium may sit unused before it is closed; default 5 minutes. */
  idleMs?: number;
  /** Pages drawn at once; default 2 (one per core here). */
  concurrency?: number;
  /** Renders waiting beyond the running ones; over it a render is refused as busy. Default 32. */
  maxQueue?: number;
  /** Default deadline of one render (waiting excluded); default 20 s (CONTRACT render budgets). */
  deadlineMs?: number;
  /** V8 heap of a page, MiB; default 256. */
  heapMb?: number;
  /** Turn Chromium's sandbox off even where it would run (default: off only as root). */
  noSandbox?: boolean;
}

/** What draws the screens, for the start-up line. */
export interface BrowserDescription {
  version: string;
  path: string;
  source: ChromiumSource;
  sandbox: boolean;
}

/** One page to draw. */
export interface CaptureRequest {
  /** The whole document (shell.ts builds it). */
  html: string;
  width: number;
  height: number;
  /** Wall-clock limit of this render once it runs; default the browser's. */
  deadlineMs?: number;
  /** The caller went away: a waiting render is dropped, a running one's page closed. */
  signal?: AbortSignal;
  /** IANA time zone scripts in the page see; default the service's. */
  timeZone?: string;
  /** BCP 47 locale scripts in the page see; default en-US. */
  locale?: string;
}

/** A drawn page: its PNG screenshot and where its pictures are. */
export interface Capture {
  png: Uint8Array;
  pictures: PictureBox[];
}

export const BROWSER_IDLE_MS = 5 * 60_000;

/** Where every connection is sent: the discard port of loopback, where nothing listens. */
const DEAD_PROXY = "socks5://127.0.0.1:9";

/**
 * Flags of this service's Chromium, beside Playwright's own (which disable background features; a
 * second `--disable-features` would replace its list): no network (above), no background
 * traffic, no GPU, bounded memory (a capped V8 heap, few renderer processes), no crash reporter.
 */
function launchFlags(heapMb: number): string[] {
  return [
    `--proxy-server=${DEAD_PROXY}`,
    // Without it loopback bypasses the proxy.
    "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-domain-reliability",
    "--disable-sync",
    "--no-pings",
    "--dns-prefetch-disable",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-breakpad",
    "--no-first-run",
    "--mute-audio",
    "--renderer-process-limit=4",
    `--js-flags=--max-old-space-size=${heapMb}`,
    "--font-render-hinting=none",
  ];
}

/** Whether the OS lets Chromium sandbox itself: not as root (it refuses to start). */
function sandboxAllowed(): boolean {
  return Deno.uid?.() !== 0;
}

/** A fresh context with its blank page, for the time zone and locale in `key`. */
interface Blank {
  key: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
}

interface Running {
  browser: Browser;
  description: BrowserDescription;
  dir: string;
}

/**
 * The browser behind HTML screens. `capture` rejects with `RenderUnavailable` when busy (its
 * queue full), closed or when Chromium cannot start, and `RenderRejected` `timed_out` past the
 * deadline (the page is closed, so a script looping forever stops there).
 */
export class HtmlBrowser {
  readonly #options: Required<Omit<HtmlBrowserOptions, "chromiumPath">> & {
    chromiumPath?: string;
  };
  #executable?: Promise<ChromiumExecutable>;
  #running?: Promise<Running>;
  #idleTimer?: ReturnType<typeof setTimeout>;
  #active = 0;
  /**
   * The next renders' contexts, prepared while earlier ones drew (`#takeBlank`): as many as pages
   * may draw at once, so back-to-back renders rarely wait for a renderer process to start.
   */
  #spares: Array<Promise<Blank | undefined>> = [];
  readonly #waiting: Array<{ start: () => void; reject: (error: unknown) => void }> = [];
  #closed = false;

  constructor(options: HtmlBrowserOptions = {}) {
    this.#options = {
      chromiumPath: options.chromiumPath,
      idleMs: options.idleMs ?? BROWSER_IDLE_MS,
      concurrency: Math.max(1, options.concurrency ?? 2),
      maxQueue: Math.max(0, options.maxQueue ?? 32),
      deadlineMs: options.deadlineMs ?? RENDER_DEADLINE_MS,
      heapMb: options.heapMb ?? 256,
      noSandbox: options.noSandbox ?? false,
    };
  }

  /** Renders running and waiting (tests, metrics). */
  get load(): { running: number; waiting: number } {
    return { running: this.#active, waiting: this.#waiting.length };
  }

  /** Whether Chromium is running now (launched and not idled out or crashed). */
  get launched(): boolean {
    return this.#running !== undefined;
  }

  /**
   * Which Chromium draws, its version and whether its sandbox is on; launches it when it is not
   * running (it idles out again later).
   */
  async describe(): Promise<BrowserDescription> {
    const running = await this.#launch();
    this.#armIdle();
    return running.description;
  }

  /** Draws one page; see the class. */
  async capture(request: CaptureRequest): Promise<Capture> {
    if (this.#closed) throw new RenderUnavailable("HTML screens are closed");
    request.signal?.throwIfAborted();
    await this.#slot(request.signal);
    try {
      return await this.#draw(request);
    } finally {
      this.#release();
    }
  }

  /** Waits for a page slot, or refuses when too many renders wait. */
  #slot(signal?: AbortSignal): Promise<void> {
    if (this.#active < this.#options.concurrency) {
      this.#active++;
      clearTimeout(this.#idleTimer);
      return Promise.resolve();
    }
    if (this.#waiting.length >= this.#options.maxQueue) {
      return Promise.reject(new RenderUnavailable("HTML screens are busy; retry shortly", 5));
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.#waiting.indexOf(entry);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(signal!.reason);
      };
      const entry = {
        start: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        reject: (error: unknown) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(entry);
    });
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) return next.start();
    this.#active--;
    if (this.#active === 0) this.#armIdle();
  }

  #armIdle(): void {
    clearTimeout(this.#idleTimer);
    if (this.#active > 0 || !this.#running) return;
    const timer = setTimeout(() => {
      if (this.#active === 0) void this.#shutDown();
    }, this.#options.idleMs);
    // An idle browser never keeps the process (or a test) alive.
    Deno.unrefTimer(timer);
    this.#idleTimer = timer;
  }

  #launch(): Promise<Running> {
    if (this.#closed) return Promise.reject(new RenderUnavailable("HTML screens are closed"));
    this.#running ??= this.#start().catch((error) => {
      this.#running = undefined;
      throw new RenderUnavailable(`Chromium could not start: ${(error as Error).message}`);
    });
    return this.#running;
  }

  async #start(): Promise<Running> {
    this.#executable ??= findChromium(this.#options.chromiumPath);
    const executable = await this.#executable;
    const dir = await Deno.makeTempDir({ prefix: "dds-chromium-" });
    const fontConfig = await writeFontConfig(dir);
    // Loaded with the first launch (issue 40): ~50 MB of heap and ~0.15 s of every start otherwise.
    const { chromium } = await import("playwright-core");
    const launch = (sandbox: boolean) =>
      chromium.launch({
        executablePath: executable.path,
        args: launchFlags(this.#options.heapMb),
        chromiumSandbox: sandbox,
        env: { ...Deno.env.toObject(), FONTCONFIG_FILE: fontConfig },
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    let sandbox = !this.#options.noSandbox && sandboxAllowed();
    let browser: Browser;
    try {
      browser = await launch(sandbox);
    } catch (error) {
      // A container without user namespaces cannot sandbox; the start-up line says it is off.
      if (!sandbox) throw error;
      sandbox = false;
      browser = await launch(false);
    }
    const running: Running = {
      browser,
      dir,
      description: {
        version: browser.version(),
        path: executable.path,
        source: executable.source,
        sandbox,
      },
    };
    browser.on("disconnected", () => {
      // Crashed or closed: the next render launches a new one, with contexts of its own.
      if (this.#running && this.#runningNow === running) this.#running = undefined;
      this.#spares = [];
      void Deno.remove(dir, { recursive: true }).catch(() => {});
    });
    this.#runningNow = running;
    return running;
  }

  /** The settled value of `#running` (to tell a stale `disconnected` from the current one). */
  #runningNow?: Running;

  async #draw(request: CaptureRequest): Promise<Capture> {
    const deadlineMs = request.deadlineMs ?? this.#options.deadlineMs;
    const deadline = AbortSignal.timeout(deadlineMs);
    const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
    const { browser } = await this.#launch();
    let context: BrowserContext | undefined;
    const work = (async () => {
      const blank = await this.#takeBlank(browser, request);
      context = blank.context;
      const page = blank.page;
      await page.setViewportSize({ width: request.width, height: request.height });
      // No timeouts of Playwright's own: the deadline below ends the render (and its page).
      await page.setContent(request.html, { waitUntil: "load", timeout: 0 });
      const pictures = await page.evaluate(collectPictures);
      const png = await page.screenshot({
        type: "png",
        animations: "disabled",
        caret: "hide",
        timeout: 0,
      });
      return { png: new Uint8Array(png.buffer, png.byteOffset, png.byteLength), pictures };
    })();
    // Settled either way below: neither may reject unhandled (the deadline fires after success).
    work.catch(() => {});
    let stop = () => {};
    const stopped = new Promise<never>((_, reject) => {
      stop = () => reject(signal.reason);
      if (signal.aborted) stop();
      signal.addEventListener("abort", stop, { once: true });
    });
    stopped.catch(() => {});
    try {
      return await Promise.race([work, stopped]);
    } catch (error) {
      if (deadline.aborted) {
        throw new RenderRejected("timed_out", `HTML screen took longer than ${deadlineMs} ms`);
      }
      if (request.signal?.aborted) throw request.signal.reason;
      if (!browser.isConnected()) {
        throw new RenderUnavailable("Chromium stopped during the render; retry shortly", 1);
      }
      throw error;
    } finally {
      signal.removeEventListener("abort", stop);
      await this.#dispose(browser, () => context, work);
    }
  }

  /**
   * A fresh context (offline, every request and WebSocket aborted) with a blank page, for the
   * scripts' time zone and locale of `request`. Creating one costs a renderer process start
   * (~100-400 ms here, most of a small render), so the next one is prepared while this one
   * draws: every render still gets a context no render used before.
   */
  async #takeBlank(browser: Browser, request: CaptureRequest): Promise<Blank> {
    const key = `${request.timeZone ?? ""}|${request.locale ?? ""}`;
    // Taken before waiting, so two renders never share one.
    const pending = this.#spares.shift();
    this.#topUp(browser, key, request);
    const spare = await pending;
    let blank: Blank;
    if (spare && spare.key === key && spare.browser === browser && browser.isConnected()) {
      blank = spare;
    } else {
      void spare?.context.close().catch(() => {});
      blank = await this.#blank(browser, key, request);
    }
    return blank;
  }

  /** Starts contexts for the next renders until `concurrency` are on their way. */
  #topUp(browser: Browser, key: string, request: CaptureRequest): void {
    while (this.#spares.length < this.#options.concurrency) {
      this.#spares.push(this.#blank(browser, key, request).catch(() => undefined));
    }
  }

  async #blank(browser: Browser, key: string, request: CaptureRequest): Promise<Blank> {
    const context = await browser.newContext({
      viewport: { width: request.width, height: request.height },
      deviceScaleFactor: 1,
      offline: true,
      serviceWorkers: "block",
      acceptDownloads: false,
      colorScheme: "light",
      reducedMotion: "reduce",
      locale: request.locale ?? "en-US",
      timezoneId: request.timeZone,
    });
    try {
      await context.route("**/*", (route) => route.abort("blockedbyclient"));
      await context.routeWebSocket(() => true, (socket) => socket.close());
      return { key, browser, context, page: await context.newPage() };
    } catch (error) {
      await context.close().catch(() => {});
      throw error;
    }
  }

  /**
   * Closes a render's context. A page stuck in a script may not close within a few seconds:
   * then the whole browser goes (its next render launches a fresh one).
   */
  async #dispose(
    browser: Browser,
    context: () => BrowserContext | undefined,
    work: Promise<unknown>,
  ): Promise<void> {
    // The context may still be being created: wait a moment for it to exist.
    await Promise.race([work.catch(() => {}), delay(50)]);
    const open = context();
    const closed = open
      ? open.close().then(() => true, () => false)
      : work.then(() => true, () => true);
    if (await Promise.race([closed, delay(3000).then(() => false)])) {
      // A context created after we gave up waiting is closed when it appears.
      if (!open) void work.finally(() => context()?.close().catch(() => {}));
      return;
    }
    await this.#kill(browser);
  }

  async #kill(browser: Browser): Promise<void> {
    // The prepared contexts go with their browser.
    this.#spares = [];
    if (this.#runningNow?.browser === browser) {
      this.#running = undefined;
      this.#runningNow = undefined;
    }
    await Promise.race([browser.close().catch(() => {}), delay(5000)]);
  }

  async #shutDown(): Promise<void> {
    // Its contexts go with the browser.
    this.#spares = [];
    const running = this.#running;
    this.#running = undefined;
    this.#runningNow = undefined;
    clearTimeout(this.#idleTimer);
    if (!running) return;
    try {
      const { browser } = await running;
      await browser.close();
    } catch {
      // It never started or already went away.
    }
  }

  /** Closes Chromium; renders waiting for a page are refused, running ones end with it. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiting of this.#waiting.splice(0)) {
      waiting.reject(new RenderUnavailable("HTML screens are closed"));
    }
    await this.#shutDown();
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    Deno.unrefTimer(timer);
  });
}
