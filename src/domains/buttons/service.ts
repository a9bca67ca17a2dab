/**
 * Button actions of pull displays (issue 24, TRMNL's `special_function`). The owner chooses per
 * display what a press does; every poll's reply announces it in `special_function` (the names
 * TRMNL's firmware knows), the firmware keeps it, and after a press it polls with the header
 * `special_function: true`: that poll carries the action out before the push is read.
 *
 * - `rewind`: the push shown before the current one (announced as `rewind`);
 * - `next`: the push after it, from the oldest again past the newest (announced as
 *   `restart_playlist`, a function the firmware leaves to the server: it only polls);
 * - `identify`: this one poll shows a screen naming the display (announced as `identify`);
 * - `none` (the default): nothing; the press is an ordinary poll.
 */
import type { Selectable } from "kysely";
import type { DevicesTable } from "../devices/tables.ts";
import type { Renderer } from "../../infra/render/types.ts";
import type { ObjectStore } from "../../infra/storage/object_store.ts";
import type { Db } from "../../schema.ts";
import { notFound } from "../../errors.ts";
import * as repo from "./repository.ts";
import { devicePrefixes } from "../pushes/keys.ts";
import { tag } from "../../infra/db/cache/announced.ts";
import { ChangeFeed } from "../../infra/db/cache/feed.ts";
import type { TaggedCache } from "../../infra/db/cache/tagged_cache.ts";
import type { PolledDevice } from "../displays/poll_extras.ts";

export const BUTTON_ACTIONS = ["none", "rewind", "next", "identify"] as const;
export type ButtonAction = typeof BUTTON_ACTIONS[number];

/** What the reply's `special_function` says for each action (TRMNL's firmware names). */
export const ANNOUNCED: Record<ButtonAction, string> = {
  none: "none",
  rewind: "rewind",
  next: "restart_playlist",
  identify: "identify",
};

/** Signed screen URLs live as long as the displays' own (30 minutes). */
const SCREEN_URL_TTL_SECONDS = 30 * 60;

type DeviceRow = Selectable<DevicesTable>;

export interface ButtonDeps {
  db: Db;
  store: ObjectStore;
  renderer: Renderer;
  /** Moves a device's current push one step (the pushes domain); true when it changed. */
  step(deviceId: string, direction: "previous" | "next"): Promise<boolean>;
  /** The owner check of device endpoints (the devices domain): 400, 404, 403. */
  owned(userId: string, deviceId: string): Promise<DeviceRow>;
  /** Invalidation of the per-device action cache; without it nothing is cached. */
  changes?: ChangeFeed;
}

/** True when the poll reports a press (`special_function: true`, any case). */
export function pressed(headers: Headers): boolean {
  return headers.get("special_function")?.trim().toLowerCase() === "true";
}

export class ButtonActions {
  /** Identify screens by what they show; a miss draws again (the same bytes, the same key). */
  private readonly screens = new Map<string, { key: string; sha256: string }>();

  /** Each display's action, dropped when its row changes (a poll reads no database for it). */
  private readonly actions: TaggedCache<ButtonAction>;

  constructor(private readonly deps: ButtonDeps) {
    this.actions = (deps.changes ?? ChangeFeed.disabled()).cache();
  }

  /** `GET .../button` (ownership checked by the caller). */
  async get(deviceId: string): Promise<{ action: ButtonAction }> {
    const action = await this.actions.get(
      deviceId,
      () => [tag.device(deviceId)],
      async () => ((await repo.findAction(this.deps.db, deviceId)) ?? "none") as ButtonAction,
    );
    return { action };
  }

  /** `PUT .../button` (ownership checked by the caller). */
  async set(deviceId: string, action: ButtonAction) {
    await repo.setAction(this.deps.db, deviceId, action);
    return { action };
  }

  /** A display's poll: the press carried out (when reported) and what to announce. */
  async onPoll(device: PolledDevice, headers: Headers) {
    const action = (await this.get(device.id)).action;
    const announce = { special_function: ANNOUNCED[action], screen: null, moved: false };
    if (!pressed(headers)) return announce;
    switch (action) {
      case "rewind":
        return { ...announce, moved: await this.deps.step(device.id, "previous") };
      case "next":
        return { ...announce, moved: await this.deps.step(device.id, "next") };
      case "identify":
        // A press is rare: the whole row (its nickname) is read only for it.
        return {
          ...announce,
          screen: await this.identifyScreen(await this.deps.owned(device.owner_id, device.id)),
        };
      default:
        return announce;
    }
  }

  /** One of the caller's devices that polls (a display); 404 for any other device. */
  async display(userId: string, deviceId: string): Promise<DeviceRow> {
    const device = await this.deps.owned(userId, deviceId);
    if (device.transport !== "http") throw notFound("Device is not a display that polls");
    return device;
  }

  /** The screen an `identify` press shows: the display's name and hardware id. */
  private async identifyScreen(device: DeviceRow) {
    const name = device.nickname ?? device.thing_name;
    const id = `${device.id}|${device.owner_id}|${name}`;
    let screen = this.screens.get(id);
    if (!screen) {
      const bitmaps = await this.deps.renderer.renderTemplate({
        name: "headline",
        variables: {
          label: "This display",
          headline: name,
          points: [`Hardware id ${device.hw_id}`, "The next refresh shows its push again"],
        },
      });
      const png = bitmaps.png as Uint8Array<ArrayBuffer>;
      const sha256 = new Uint8Array(await crypto.subtle.digest("SHA-256", png)).toHex();
      // Beside the device's pushes: it names the display, so it goes with them (unbind,
      // account deletion: the pushes domain's prefixes).
      const key = `${
        devicePrefixes(device.owner_id ?? "none", device.id)[0]
      }identify-${sha256}.png`;
      if (!(await this.deps.store.head(key))) await this.deps.store.put(key, png, "image/png");
      screen = { key, sha256 };
      if (this.screens.size >= 1000) this.screens.clear();
      this.screens.set(id, screen);
    }
    return {
      image_url: await this.deps.store.signedGetUrl(screen.key, SCREEN_URL_TTL_SECONDS),
      filename: screen.sha256,
    };
  }
}
