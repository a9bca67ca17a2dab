/**
 * The screens the displays domain draws itself (the claim code, "nothing to show yet", the
 * key-less help): Scenes or the `headline` template, stored once by their SHA-256 (`screenKey`),
 * their `filename` that hash, so a panel redraws exactly when the picture changes. They belong to
 * no user.
 */
import type { ObjectStore } from "../../infra/storage/object_store.ts";
import type { PanelSpec, Renderer } from "../../infra/render/types.ts";
import { type Log, silentLog } from "../../infra/lib/log.ts";
import { type DisplayRow, screenKey } from "./keys.ts";
import { NO_EXTRAS } from "./poll_extras.ts";
import { claimScene } from "./claim_scene.ts";
import { keylessScene } from "./keyless_scene.ts";
import { toProfile } from "./views.ts";
import type { DisplayReply } from "./protocol.ts";

/** Signed image URLs live this long (CONTRACT.md: at least 15 minutes). */
export const IMAGE_URL_TTL_SECONDS = 30 * 60;

/** A screen the service draws itself (claim code, "nothing to show yet"). */
export interface Screen {
  key: string;
  sha256: string;
}

export class DisplayScreens {
  /** Drawn screens by what they show; a miss draws again (the same bytes: the same key). */
  private readonly drawn = new Map<string, Promise<Screen>>();
  private readonly log: Log;

  constructor(
    private readonly deps: {
      store: ObjectStore;
      renderer: Renderer;
      /** The service's public origin, shown on the claim screen. */
      baseUrl: () => string;
      log?: Log;
    },
  ) {
    this.log = deps.log ?? silentLog;
  }

  /** The claim screen: the code, where to claim it, how long it is valid. */
  claim(code: string) {
    const base = this.deps.baseUrl();
    // A Scene, not a template: the code is set large enough to read across a room.
    return this.drawScene(`claim:${code}:${base}`, claimScene(code, base));
  }

  /**
   * What a claimed display polling without its key gets while its owner has not turned on
   * `keyless`: how to give the client its key, or to turn it on. One screen for every display.
   */
  keyless() {
    const base = this.deps.baseUrl();
    return this.drawScene(`keyless:${base}`, keylessScene(base));
  }

  /** What a claimed display without a push shows, drawn for its panel when it is not an OG's. */
  noPush(panel: PanelSpec | null = null) {
    const variables = {
      label: "Ready",
      headline: "Nothing to show yet",
      points: ["This display is yours: send it a push and it appears at the next refresh"],
    };
    const id = panel
      ? `no-push@${panel.width}x${panel.height}x${panel.bitDepth}r${panel.rotation}`
      : "no-push";
    return this.draw(id, async () =>
      (await this.deps.renderer.renderTemplate({
        name: "headline",
        variables,
        ...(panel ? { panel } : {}),
      })).png);
  }
  reply(
    status: 0 | 202,
    screen: Screen,
    refreshRate: number,
    extra = NO_EXTRAS,
  ): Promise<DisplayReply> {
    return this.urlOf(screen).then((url) => ({
      status,
      image_url: url,
      filename: screen.sha256,
      refresh_rate: refreshRate,
      reset_firmware: false as const,
      ...extra,
    }));
  }
  urlOf(screen: Screen) {
    return this.deps.store.signedGetUrl(screen.key, IMAGE_URL_TTL_SECONDS);
  }
  /** A Scene drawn once as an 800x480 1-bit screen, which every TRMNL firmware reads. */
  private drawScene(id: string, scene: unknown): Promise<Screen> {
    return this.draw(id, () =>
      this.deps.renderer.renderScene({
        scene,
        width: 800,
        height: 480,
        colorMode: "monochrome",
        mode: "hardcode",
      }));
  }
  /**
   * Draws a screen once (`render` gives its PNG: 800x480 1 bit, or a panel's) and stores it by its
   * hash; `id` says what it shows.
   */
  private draw(id: string, render: () => Promise<Uint8Array>): Promise<Screen> {
    const known = this.drawn.get(id);
    if (known) return known;
    // Polls that miss at once share one drawing (a fleet's first polls after a start).
    const drawing = this.store(render).then((screen) => {
      this.log.info("display screen drawn", { id: id.split(":")[0] });
      return screen;
    });
    // Bounded: codes come and go; a miss only draws again. A failed drawing is not kept.
    if (this.drawn.size >= 1000) this.drawn.clear();
    this.drawn.set(id, drawing);
    drawing.catch(() => this.drawn.delete(id));
    return drawing;
  }

  /** Renders a screen and stores it under its hash, once. */
  private async store(render: () => Promise<Uint8Array>): Promise<Screen> {
    const png = await render();
    const digest = await crypto.subtle.digest("SHA-256", png as Uint8Array<ArrayBuffer>);
    const sha256 = new Uint8Array(digest).toHex();
    const key = screenKey(sha256);
    if (!(await this.deps.store.head(key))) {
      await this.deps.store.put(key, png, "image/png");
    }
    return { key, sha256 };
  }
}

/**
 * The panel the service's own screens are drawn for: null for an 800x480 1-bit panel (every
 * TRMNL firmware reads the common screen), else the display's profile.
 */
export function screenPanel(row: DisplayRow): PanelSpec | null {
  const { width, height, bitDepth, rotation } = toProfile(row);
  if (width === 800 && height === 480 && bitDepth === 1 && rotation === 0) return null;
  return { width, height, bitDepth, rotation };
}
