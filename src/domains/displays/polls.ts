/**
 * A display's poll (`GET /api/display`, CONTRACT.md): a pending display gets its claim screen, a
 * claimed one its push with `push/refresh`'s rule, in one walk: its key proves the display, the
 * cached head of its device proves the owner, then one call into pushes. Never a body `status`
 * 500, and `reset_firmware: true` only once after the owner's explicit reset: TRMNL's firmware
 * erases itself on either. Also the signed picture URLs a poll answers and their download.
 */
import type { Db } from "../../schema.ts";
import { forbidden, notFound, unauthorized } from "../../errors.ts";
import { sign, verify } from "../../infra/storage/signing.ts";
import type { DevicesService } from "../devices/service.ts";
import type { PushesService } from "../pushes/service.ts";
import { displayThingName } from "../devices/views.ts";
import { type Log, silentLog } from "../../infra/lib/log.ts";
import { LastWrites } from "./last_writes.ts";
import { normalizeMac, panelReported, reportedHeaders } from "./headers.ts";
import type { DisplayKeys, DisplayRow } from "./keys.ts";
import type { DisplayPairing } from "./pairing.ts";
import type { KeylessPolls } from "./keyless.ts";
import { type DisplayScreens, IMAGE_URL_TTL_SECONDS, screenPanel } from "./screens.ts";
import * as repo from "./repository.ts";
import { secondsToWake } from "./sleep.ts";
import { firmwareFields, type PollExtras, pressButton } from "./poll_extras.ts";
import type { DisplayReply } from "./protocol.ts";

/** `refresh_rate` of a display that has none set (CONTRACT.md). */
export const DEFAULT_REFRESH_RATE = 900;
/** A poll that reports the same as the last one within this long writes nothing. */
const REPORT_EVERY_MS = 60_000;
/** `refresh_rate` while another push waits (CONTRACT.md: about 60 s). */
export const WAITING_REFRESH_RATE = 60;
/** `refresh_rate` while pending: the claim is shown soon after it happens. */
export const PENDING_REFRESH_RATE = 60;
export interface PollsDeps {
  db: Db;
  devices: DevicesService;
  pushes: PushesService;
  keys: DisplayKeys;
  pairing: DisplayPairing;
  screens: DisplayScreens;
  /** Polls that send no key (`keyless.ts`). */
  keyless: KeylessPolls;
  /** The service's public origin, in a push's `image_url`. */
  baseUrl: () => string;
  /** HMAC key of a push's `image_url` (`GET /api/display/image/{pushId}`). */
  imageSecret: string;
  /** What other domains add to a claimed display's poll (firmware, button; poll_extras.ts). */
  extras: PollExtras;
  log?: Log;
}

export class DisplayPolls {
  private readonly db: Db;
  private readonly devices: DevicesService;
  private readonly pushes: PushesService;
  private readonly keys: DisplayKeys;
  private readonly pairing: DisplayPairing;
  private readonly screens: DisplayScreens;
  private readonly keyless: KeylessPolls;
  private readonly baseUrl: () => string;
  private readonly imageSecret: string;
  private readonly extras: PollExtras;
  private readonly log: Log;
  /**
   * The last report this process wrote per device (time and headers): an unchanged one within
   * a minute is not written again, and the check reads no database.
   */
  private readonly reports = new LastWrites(REPORT_EVERY_MS);
  /** The same for the panel a display's polls report (model and size), per display. */
  private readonly panels = new LastWrites(REPORT_EVERY_MS);
  /** Pushes whose confirmation is being written: a poll meanwhile does not start another. */
  private readonly confirming = new Set<string>();
  /** Signatures of `image_url`s by push, for one expiry (a fleet polls the same URL again). */
  private signed = { expires: 0, byPush: new Map<string, string>() };

  constructor(deps: PollsDeps) {
    this.db = deps.db;
    this.devices = deps.devices;
    this.pushes = deps.pushes;
    this.keys = deps.keys;
    this.pairing = deps.pairing;
    this.screens = deps.screens;
    this.keyless = deps.keyless;
    this.baseUrl = deps.baseUrl;
    this.imageSecret = deps.imageSecret;
    this.extras = deps.extras;
    this.log = deps.log ?? silentLog;
  }

  /**
   * `GET /api/display`: a pending display gets its claim screen (`status` 202; an expired code
   * is renewed), a claimed one its push, with `push/refresh`'s rule. A poll with no
   * `Access-Token` header at all (`token` null; an empty one is a malformed key) stands for the
   * display of its MAC as far as `keyless.ts` allows; `ip` is the client's address.
   */
  async poll(token: string | null, headers: Headers, ip: string): Promise<DisplayReply> {
    if (token === null) return await this.keylessPoll(headers, ip);
    let display = await this.keys.authenticate(token);
    const reported = reportedHeaders(headers);
    const mac = normalizeMac(headers.get("id"));
    if (display.status === "enrollment") {
      display = await this.pairing.enroll(display, mac);
    } else if (display.enrolled_by !== null && display.mac !== mac) {
      // CONTRACT.md: an enrollment token is the key of the MAC its first poll came with.
      throw unauthorized("Unknown display key");
    }
    return await this.answer(display, reported, headers);
  }

  /** A poll without a key: the help screen, or the display it stands for (`keyless.ts`). */
  private async keylessPoll(headers: Headers, ip: string): Promise<DisplayReply> {
    // Bad headers are 400 before a pending display is made for them.
    const reported = reportedHeaders(headers);
    const found = await this.keyless.resolve(normalizeMac(headers.get("id")), ip);
    if ("reply" in found) return found.reply;
    return await this.answer(found.display, reported, headers);
  }

  /** The reply to a poll of `display`: its claim screen while pending, else its push. */
  private answer(display: DisplayRow, reported: Record<string, string>, headers: Headers) {
    return display.status === "pending"
      ? this.pending(display, reported)
      : this.claimed(display, reported, headers);
  }

  /** A pending display: its claim screen (an expired code renewed), body `status` 202. */
  private async pending(display: DisplayRow, reported: Record<string, string>) {
    const current = await this.pairing.renewedCode(display);
    // What it reports while pending is its device's first state once claimed (at most one
    // write a minute per display, like a claimed display's reports).
    await this.reports.write(display.id, JSON.stringify(reported), async () => {
      await repo.updateDisplay(this.db, display.id, { reported, seen_at: new Date() });
    });
    const screen = await this.screens.claim(current.friendly_id ?? "");
    return await this.screens.reply(202, screen, PENDING_REFRESH_RATE);
  }

  /**
   * A claimed display, in one walk: the owner and latest push from the cached head (the
   * unchanged poll reads no database), its report, its button, one call into pushes, the
   * firmware offer; then the push, the button's screen, or the "nothing yet" screen.
   */
  private async claimed(
    display: DisplayRow,
    reported: Record<string, string>,
    headers: Headers,
  ): Promise<DisplayReply> {
    const device = await this.devices.head(display.device_id!);
    if (!device?.owner_id) throw unauthorized("Unknown display key");
    // The owner asked for a reset: this poll (one only) says so; the firmware wipes itself and
    // sets up again. The only `reset_firmware: true` the service ever sends.
    if (display.reset_requested_at !== null && await repo.takeReset(this.db, display.id)) {
      this.log.info("display reset sent", { deviceId: device.id });
      const reply = await this.screens.reply(0, await this.screens.noPush(), DEFAULT_REFRESH_RATE);
      return { ...reply, reset_firmware: true };
    }
    const panel = await this.report(display, device.id, reported);
    const polled = {
      id: device.id,
      owner_id: device.owner_id,
      thing_name: displayThingName(display.mac!),
    };
    const button = await pressButton(this.extras, polled, headers);
    // One call into pushes with the device the key proved (a press that moved the push is read
    // again): `push/refresh` when a push waits, the cached current push otherwise.
    const head = button.moved ? await this.devices.head(device.id) ?? device : device;
    const { push, waiting } = await this.pushes.forDisplay(head);
    const refreshRate = refreshRateOf(display, waiting);
    const extra = {
      ...await firmwareFields(this.extras, polled, reported),
      special_function: button.special_function,
    };
    if (button.screen) {
      return {
        status: 0,
        ...button.screen,
        refresh_rate: refreshRate,
        reset_firmware: false,
        ...extra,
      };
    }
    if (!push) {
      const screen = await this.screens.noPush(screenPanel({ ...display, ...panel }));
      return await this.screens.reply(0, screen, refreshRate, extra);
    }
    // The display is back with the push it was given at its last poll: it has shown it
    // (PUBLISHED → CONFIRMED, like an MQTT device's `up/confirm`).
    if (!push.changed && push.status === "PUBLISHED") {
      await this.confirmOnce(device.id, push.pushId);
    }
    return {
      status: 0,
      image_url: this.pictureUrl(push.pushId),
      filename: push.sha256 ?? push.pushId,
      refresh_rate: refreshRate,
      reset_firmware: false,
      ...extra,
    };
  }

  /**
   * A claimed display's poll reports its state and its panel: each written when it changed, or
   * a minute after this process last wrote it (a fleet polls all day). Returns the panel.
   */
  private async report(display: DisplayRow, deviceId: string, reported: Record<string, string>) {
    await this.reports.write(
      deviceId,
      JSON.stringify(reported),
      () => this.devices.reportDisplay(deviceId, reported),
    );
    const panel = panelReported(reported, display.model);
    if (
      panel.model !== display.model || panel.reported_width !== display.reported_width ||
      panel.reported_height !== display.reported_height
    ) {
      // The cached row is behind until the change feed drops it: written once meanwhile.
      await this.panels.write(display.id, JSON.stringify(panel), async () => {
        await repo.updateDisplay(this.db, display.id, panel);
      });
    }
    return panel;
  }

  /** A push shown: confirmed once, however many polls come while it is written. */
  private async confirmOnce(deviceId: string, pushId: string) {
    if (this.confirming.has(pushId)) return;
    this.confirming.add(pushId);
    try {
      await this.pushes.confirmShown(deviceId, pushId);
    } finally {
      this.confirming.delete(pushId);
    }
  }

  /**
   * A push's signed `image_url` on this service: the download goes through it, so it is
   * recorded (`GET /api/display/image/{pushId}`). The expiry is rounded up to the minute, so
   * a poll within that minute reuses the signature.
   */
  private pictureUrl(pushId: string): string {
    const expires = Math.ceil((Date.now() / 1000 + IMAGE_URL_TTL_SECONDS) / 60) * 60;
    if (this.signed.expires !== expires) this.signed = { expires, byPush: new Map() };
    let signature = this.signed.byPush.get(pushId);
    if (signature === undefined) {
      signature = sign(this.imageSecret, pictureMessage(pushId, expires));
      this.signed.byPush.set(pushId, signature);
    }
    return `${this.baseUrl()}/api/display/image/${pushId}?expires=${expires}&signature=${signature}`;
  }
  /** `GET /api/display/image/{pushId}`: the PNG of a signed, unexpired URL (403 otherwise). */
  async picture(pushId: string, expires: string, signature: string): Promise<Uint8Array> {
    const at = /^\d{1,12}$/.test(expires) ? Number(expires) : 0;
    if (
      at * 1000 < Date.now() || !verify(this.imageSecret, pictureMessage(pushId, at), signature)
    ) {
      throw forbidden("Expired or invalid signature");
    }
    const png = await this.pushes.fetchPicture(pushId);
    if (!png) throw notFound("Push not found or not rendered");
    return png;
  }
}

/**
 * CONTRACT.md: the display's interval, shortened while a push waits (queued, or still
 * rendering); inside the owner's sleep window it sleeps until its end instead.
 */
function refreshRateOf(display: DisplayRow, waiting: boolean): number {
  const interval = display.refresh_rate ?? DEFAULT_REFRESH_RATE;
  const window = display.profile?.sleepWindow;
  const wake = window ? secondsToWake(window) : null;
  if (wake !== null) return Math.max(interval, wake);
  return waiting ? Math.min(WAITING_REFRESH_RATE, interval) : interval;
}

/** What a push's `image_url` signs: its push and expiry, apart from every other signature. */
export function pictureMessage(pushId: string, expires: number): string {
  return `display-image\n${pushId}\n${expires}`;
}
