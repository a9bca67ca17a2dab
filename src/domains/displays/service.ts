/**
 * Displays people already own (CONTRACT.md, TRMNL's pull protocol: ../shared/TRMNL.md). A
 * display sets itself up with its MAC (`GET /api/setup`) and gets a key and a claim code; a user
 * claims the code (`POST /api/devices/claim`) and the display becomes a device of theirs through
 * the devices domain; every poll (`GET /api/display`) then answers the device's push like
 * `push/refresh`. Never a body `status` 500, and `reset_firmware: true` only once after the
 * owner's explicit reset (`requestReset`): TRMNL's firmware erases itself on either. An unknown
 * key is 401, a fault of the service 503 (the route).
 */
import type { Selectable } from "kysely";
import { AppError, badRequest, conflict, forbidden, notFound, unauthorized } from "../../errors.ts";
import { sign, verify } from "../../infra/storage/signing.ts";
import { sourceOf } from "../../infra/lib/source.ts";
import { reserveClaimAttempt } from "./claim_limits.ts";
import { tag } from "../../infra/db/cache/announced.ts";
import { ChangeFeed } from "../../infra/db/cache/feed.ts";
import type { TaggedCache } from "../../infra/db/cache/tagged_cache.ts";
import { newClaimCode } from "../devices/claim_code.ts";
import type { DevicesService } from "../devices/service.ts";
import type { PushesService } from "../pushes/service.ts";
import type { Renderer } from "../../infra/render/types.ts";
import type { ObjectStore } from "../../infra/storage/object_store.ts";
import { isUniqueViolation } from "../../infra/db/errors.ts";
import { randomToken, sha256Hex } from "../../infra/lib/crypto.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import { type Log, silentLog } from "../../infra/lib/log.ts";
import type { Db, Trx } from "../../schema.ts";
import { screenKey } from "./keys.ts";
import { LastWrites } from "./last_writes.ts";
import * as repo from "./repository.ts";
import type { DisplaysTable, OwnerProfile } from "./tables.ts";
import { modelOf } from "./models.ts";
import { secondsToWake } from "./sleep.ts";
import { type DisplayProfile, MAX_PANEL_PIXELS, toLogItem, toProfile } from "./views.ts";
import { isStorableJson } from "../devices/report_payload.ts";
import { displayThingName } from "../devices/views.ts";
import { anchorOf, keysetPage } from "../../infra/lib/cursor.ts";
import type { PanelSpec } from "../../infra/render/types.ts";
import { firmwareFields, NO_EXTRAS, type PollExtras, pressButton } from "./poll_extras.ts";

type DisplayRow = Selectable<DisplaysTable>;

/** A claim code is valid this long (CONTRACT.md). */
export const CODE_TTL_MS = 24 * 3600 * 1000;
/** `refresh_rate` of a display that has none set (CONTRACT.md). */
export const DEFAULT_REFRESH_RATE = 900;
/** A poll that reports the same as the last one within this long writes nothing. */
const REPORT_EVERY_MS = 60_000;
/** `refresh_rate` while another push waits (CONTRACT.md: about 60 s). */
export const WAITING_REFRESH_RATE = 60;
/** `refresh_rate` while pending: the claim is shown soon after it happens. */
export const PENDING_REFRESH_RATE = 60;
/** Signed image URLs live this long (CONTRACT.md: at least 15 minutes). */
export const IMAGE_URL_TTL_SECONDS = 30 * 60;

/** The Wi-Fi MAC: six hex pairs, separated by colons or dashes, or none. */
const MAC = /^[0-9a-f]{2}([:-]?)[0-9a-f]{2}(?:\1[0-9a-f]{2}){4}$/i;
/** A key this service issues: base64url of 32 random bytes (43 characters). */
const KEY = /^[A-Za-z0-9_-]{16,128}$/;

/** Headers a poll reports, kept raw in the device's `state` (lower-case names). */
export const REPORTED_HEADERS = [
  "battery-voltage",
  "percent-charged",
  "rssi",
  "fw-version",
  "fw-commit",
  "model",
  "width",
  "height",
  "png-width",
  "png-height",
  "refresh-rate",
  "update-source",
  "wake-time",
  "image-cached",
  "temperature-profile",
  "battery-charging",
  "usb-connected",
  "wifi-band",
  "user-agent",
] as const;

/** The largest Width/Height a panel may report (TRMNL X is 1872x1404). */
export const MAX_PANEL_SIDE = 4096;

/** `GET /api/setup`'s 200 body. */
export interface SetupReply {
  status: 200;
  api_key: string;
  friendly_id: string;
  image_url: string;
  message: string;
}

/** `GET /api/display`'s 200 body (CONTRACT.md fields, TRMNL's names). */
export interface DisplayReply {
  status: 0 | 202;
  image_url: string;
  filename: string;
  refresh_rate: number;
  update_firmware: boolean;
  firmware_url: string | null;
  /** True only at the first poll after the owner's `POST /api/devices/{id}/reset`. */
  reset_firmware: boolean;
  special_function: string;
}

/** What `DisplaysService` is built from (one object, like every domain's service). */
export interface DisplaysDeps {
  db: Db;
  devices: DevicesService;
  pushes: PushesService;
  store: ObjectStore;
  renderer: Renderer;
  /** DISPLAY_SETUPS_PER_MINUTE. */
  setupsPerMinute: number;
  /** DISPLAYS_PER_USER: displays one user may hold (claimed, enrolled, and unused tokens). */
  displaysPerUser: number;
  /** The service's public origin, shown on the claim screen and in a push's `image_url`. */
  baseUrl: () => string;
  /** HMAC key of a push's `image_url` (`GET /api/display/image/{pushId}`). */
  imageSecret: string;
  /** Invalidation of the displays-by-key cache; without it nothing is cached. */
  changes?: ChangeFeed;
  log?: Log;
  /** What other domains add to a claimed display's poll (firmware, button; poll_extras.ts). */
  extras?: PollExtras;
}

/** A MAC header as 12 lower-case hex characters, or null when it is not one. */
export function normalizeMac(value: string | null): string | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (!MAC.test(trimmed)) return null;
  return trimmed.replace(/[:-]/g, "").toLowerCase();
}

/** The reported headers worth keeping: short, printable values only. */
export function reportedHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of REPORTED_HEADERS) {
    const value = headers.get(name);
    if (value !== null && value.length <= 64 && /^[\x20-\x7e]*$/.test(value)) {
      out[name] = value.trim();
    }
  }
  for (const name of ["width", "height", "png-width", "png-height"] as const) {
    const value = out[name];
    if (value === undefined) continue;
    const side = Number(value);
    if (!/^\d+$/.test(value) || side < 1 || side > MAX_PANEL_SIDE) {
      throw badRequest(`${name} must be 1 to ${MAX_PANEL_SIDE}`);
    }
  }
  return out;
}

/** A screen the service draws itself (claim code, "nothing to show yet"). */
interface Screen {
  key: string;
  sha256: string;
}

export class DisplaysService {
  private readonly db: Db;
  private readonly devices: DevicesService;
  private readonly pushes: PushesService;
  private readonly store: ObjectStore;
  private readonly renderer: Renderer;
  private readonly setupsPerMinute: number;
  private readonly displaysPerUser: number;
  private readonly baseUrl: () => string;
  private readonly imageSecret: string;
  private readonly log: Log;
  private readonly extras: PollExtras;
  /** Display rows by key hash, dropped when the row changes (src/infra/db/cache/feed.ts). */
  private readonly byKey: TaggedCache<DisplayRow | undefined>;
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
  /** Drawn screens by what they show; a miss draws again (the same bytes: the same key). */
  private readonly screens = new Map<string, Screen>();

  constructor(deps: DisplaysDeps) {
    this.db = deps.db;
    this.devices = deps.devices;
    this.pushes = deps.pushes;
    this.store = deps.store;
    this.renderer = deps.renderer;
    this.setupsPerMinute = deps.setupsPerMinute;
    this.displaysPerUser = deps.displaysPerUser;
    this.baseUrl = deps.baseUrl;
    this.imageSecret = deps.imageSecret;
    this.byKey = (deps.changes ?? ChangeFeed.disabled()).cache();
    this.log = deps.log ?? silentLog;
    this.extras = deps.extras ?? { firmware: [], button: [] };
  }

  /**
   * `GET /api/setup`: the pending display of the MAC (created when there is none; a claimed
   * MAC gets a new pending display: a re-pair), with a **new** key each time: the display's
   * earlier keys stop at once, so a key taken by calling setup before the display is worthless
   * (CONTRACT.md "Display ownership and fair shares"). Counted per source before anything else.
   */
  async setup(id: string | null, ip: string): Promise<SetupReply> {
    const mac = normalizeMac(id);
    if (mac === null) throw badRequest("ID header must be the display's MAC address");
    const wait = await repo.hitSetupWindow(
      this.db,
      `ip:${sourceOf(ip)}`,
      this.setupsPerMinute,
      60,
    );
    if (wait !== null) {
      throw new AppError("rate_limited", "Too many setups; try again later", {
        "Retry-After": String(wait),
      });
    }
    const key = randomToken(32);
    const keyFields = { key_hash: sha256Hex(key), api_key: null };
    const display = await this.withFreshCode(async (trx) => {
      const pending = await repo.lockPendingByMac(trx, mac);
      if (pending) {
        const codeValid = pending.code_expires_at !== null &&
          pending.code_expires_at.getTime() > Date.now();
        const code = codeValid ? {} : this.codeFields();
        return await repo.updateDisplay(trx, pending.id, { ...keyFields, ...code }) ?? pending;
      }
      return await repo.insertDisplay(trx, {
        id: uuidv7(),
        mac,
        ...keyFields,
        status: "pending",
        ...this.codeFields(),
      });
    });
    const screen = await this.claimScreen(display.friendly_id!);
    return {
      status: 200,
      api_key: key,
      friendly_id: display.friendly_id!,
      image_url: await this.urlOf(screen),
      message: `Claim this display with the code ${display.friendly_id} at ${this.baseUrl()}`,
    };
  }

  /**
   * `GET /api/display`: a pending display gets its claim screen (`status` 202; an expired code
   * is renewed), a claimed one its push, with `push/refresh`'s rule.
   */
  async poll(token: string | null, headers: Headers): Promise<DisplayReply> {
    let display = await this.authenticate(token);
    const reported = reportedHeaders(headers);
    const mac = normalizeMac(headers.get("id"));
    if (display.status === "enrollment") {
      display = await this.enroll(display, mac);
    } else if (display.enrolled_by !== null && display.mac !== mac) {
      // CONTRACT.md: an enrollment token is the key of the MAC its first poll came with.
      throw unauthorized("Unknown display key");
    }
    if (display.status === "pending") {
      let current = display;
      if (!current.code_expires_at || current.code_expires_at.getTime() <= Date.now()) {
        current = await this.withFreshCode(async (trx) => {
          const locked = await repo.lockPendingByMac(trx, display.mac!);
          if (!locked || locked.id !== display.id) return display;
          return await repo.updateDisplay(trx, display.id, this.codeFields()) ?? display;
        });
      }
      // What it reports while pending is its device's first state once claimed (at most one
      // write a minute per display, like a claimed display's reports).
      await this.reports.write(display.id, JSON.stringify(reported), async () => {
        await repo.updateDisplay(this.db, display.id, { reported, seen_at: new Date() });
      });
      const screen = await this.claimScreen(current.friendly_id ?? "");
      return this.reply(202, screen, PENDING_REFRESH_RATE);
    }
    // The owner and latest push from the cached head (the unchanged poll reads no database).
    const device = await this.devices.head(display.device_id!);
    if (!device?.owner_id) throw unauthorized("Unknown display key");
    // The owner asked for a reset: this poll (one only) says so; the firmware wipes itself and
    // sets up again. The only `reset_firmware: true` the service ever sends.
    if (display.reset_requested_at !== null && await repo.takeReset(this.db, display.id)) {
      this.log.info("display reset sent", { deviceId: device.id });
      const reply = await this.reply(0, await this.noPushScreen(), DEFAULT_REFRESH_RATE);
      return { ...reply, reset_firmware: true };
    }
    // An unchanged report within a minute is not written again (a fleet polls all day).
    const state = JSON.stringify(reported);
    await this.reports.write(
      device.id,
      state,
      () => this.devices.reportDisplay(device.id, reported),
    );
    // Each poll's headers are the panel as it is now.
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
    // CONTRACT.md: shortened while a push waits (queued, or still rendering). Inside the
    // owner's sleep window the display sleeps until its end instead.
    const interval = display.refresh_rate ?? DEFAULT_REFRESH_RATE;
    const window = display.profile?.sleepWindow;
    const wake = window ? secondsToWake(window) : null;
    const refreshRate = wake !== null
      ? Math.max(interval, wake)
      : waiting
      ? Math.min(WAITING_REFRESH_RATE, interval)
      : interval;
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
      const screen = await this.noPushScreen(screenPanel({ ...display, ...panel }));
      return this.reply(0, screen, refreshRate, extra);
    }
    // The display is back with the push it was given at its last poll: it has shown it
    // (PUBLISHED → CONFIRMED, like an MQTT device's `up/confirm`).
    if (!push.changed && push.status === "PUBLISHED" && !this.confirming.has(push.pushId)) {
      this.confirming.add(push.pushId);
      try {
        await this.pushes.confirmShown(device.id, push.pushId);
      } finally {
        this.confirming.delete(push.pushId);
      }
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
   * `POST /api/devices/claim`: a pending, unexpired code becomes a device of the caller; every
   * other code (unknown, expired, claimed, or a re-pair of a display another user owns) is one
   * 404. Attempts are counted before any code is looked up (`claim_limits.ts`); a user holds at
   * most `displaysPerUser` displays (409 over).
   */
  async claim(userId: string, code: unknown, ip: string) {
    const attempt = await reserveClaimAttempt(this.db, userId, ip);
    const normalized = typeof code === "string" ? code.trim().toUpperCase() : "";
    if (!/^[A-Z0-9]{6}$/.test(normalized)) throw notFound(UNKNOWN_CODE);
    const claimed = this.db.transaction().execute(async (trx) => {
      const display = await repo.lockPendingByCode(trx, normalized);
      if (!display?.code_expires_at || display.code_expires_at.getTime() <= Date.now()) {
        throw notFound(UNKNOWN_CODE);
      }
      await repo.lockUserDisplays(trx, userId);
      // A re-pair of a display someone else owns stays theirs until they let it go.
      const adopted = await this.devices.adoptDisplay(trx, display.mac!, userId);
      if (!adopted) throw notFound(UNKNOWN_CODE);
      await this.refuseOverLimit(trx, userId);
      // The claim answers what the display reported while it waited (issue 34).
      const seen = display.reported && display.seen_at
        ? await this.devices.seedDisplayReport(trx, adopted.id, display.reported, display.seen_at)
        : undefined;
      // A re-pair: the display's earlier key stops only now, when the new code is claimed.
      await repo.replaceClaimed(trx, display.mac!, display.id);
      await repo.updateDisplay(trx, display.id, {
        status: "claimed",
        device_id: adopted.id,
        api_key: null,
        friendly_id: null,
        code_expires_at: null,
        claimed_at: new Date(),
        ...(display.reported ? panelReported(display.reported, display.model) : {}),
      });
      return seen ?? adopted;
    });
    // A right code is not a wrong guess, whether it was claimed or refused by the limit.
    const device = await claimed.catch(async (error) => {
      if (error instanceof AppError && error.status === 409) await attempt.release();
      throw error;
    });
    await attempt.release();
    return { device, status: "bound" as const };
  }

  /** 409 when the user holds more displays than allowed (counted in the caller's transaction). */
  private async refuseOverLimit(trx: Trx, userId: string, adding = 0) {
    const held = await this.devices.countDisplays(trx, userId) +
      (await repo.unusedEnrollments(trx, userId)).count + adding;
    if (held > this.displaysPerUser) {
      throw conflict(`A user holds at most ${this.displaysPerUser} displays (DISPLAYS_PER_USER)`);
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

  /**
   * `POST /api/log`: a claimed display's entries are kept (its newest 1,000 within 1 MiB, each
   * entry up to 4 KiB: a longer one is cut and marked); a pending display's are accepted and
   * dropped (no owner could read them).
   */
  async receiveLogs(token: string | null, body: unknown): Promise<void> {
    const display = await this.authenticate(token);
    const entries = logEntries(body);
    if (display.status !== "claimed" || !display.device_id) return;
    const deviceId = display.device_id;
    const text = (value: unknown, max: number, fallback: string) =>
      typeof value === "string" && value.length > 0 ? value.slice(0, max) : fallback;
    const kept = entries.slice(-LOGS_KEPT);
    // One receipt time for the batch: ids in ascending order keep the entries' own order.
    const ids = kept.map(() => uuidv7()).sort();
    await repo.insertLogs(
      this.db,
      deviceId,
      kept.map((sent, i) => {
        const entry = keptEntry(sent);
        const message = text(sent.message, 1000, "");
        return {
          id: ids[i],
          device_id: deviceId,
          level: text(sent.level, 16, "info"),
          message,
          entry,
          bytes: utf8Length(JSON.stringify(entry)) + utf8Length(message),
        };
      }),
      { keep: LOGS_KEPT, maxBytes: LOG_BYTES_KEPT },
    );
  }

  /** `GET /api/devices/{id}/logs`: newest first, paged like pushes. */
  async listLogs(userId: string, deviceId: string, input: { cursor?: string; limit?: number }) {
    await this.devices.owned(userId, deviceId);
    const after = anchorOf(input.cursor);
    const limit = Math.min(input.limit ?? LOG_PAGE, LOG_PAGE_MAX);
    const rows = await repo.listLogs(this.db, deviceId, after, limit);
    return await keysetPage(rows, limit, (page) => page.map(toLogItem));
  }

  /** `GET /api/devices/{id}/display-profile`: the caller's display (403 another user's). */
  async getProfile(userId: string, deviceId: string): Promise<DisplayProfile> {
    return toProfile(await this.ownedDisplay(userId, deviceId));
  }

  /** `PUT /api/devices/{id}/display-profile`: any of the fields; the whole profile back. */
  async setProfile(
    userId: string,
    deviceId: string,
    input: Partial<OwnerProfile> & { colors?: number; refreshRate?: number },
  ): Promise<DisplayProfile> {
    const display = await this.ownedDisplay(userId, deviceId);
    const { colors, refreshRate, ...fields } = input;
    if (fields.model !== undefined) {
      if (!modelOf(fields.model)) throw badRequest(`Unknown model ${JSON.stringify(fields.model)}`);
      fields.model = fields.model.trim().toLowerCase();
    }
    const profile = { ...display.profile, ...stripUndefined(fields) };
    const next = toProfile({ ...display, profile });
    if (next.width * next.height > MAX_PANEL_PIXELS) {
      throw badRequest(
        `width x height must be at most ${MAX_PANEL_PIXELS} pixels (${next.width}x${next.height})`,
      );
    }
    if (colors !== undefined && colors !== next.colors) {
      throw badRequest(`colors must be ${next.colors} for a bitDepth of ${next.bitDepth}`);
    }
    const refresh = refreshRate ?? display.refresh_rate;
    const row = await repo.updateDisplay(this.db, display.id, { profile, refresh_rate: refresh });
    return toProfile(row ?? { ...display, profile, refresh_rate: refresh });
  }

  /**
   * The panel a device's pushes are drawn for, when it is a claimed display (the render job);
   * null for any other device (800x480, the three v0.1 formats).
   */
  async panelOf(deviceId: string): Promise<PanelSpec | null> {
    const display = await repo.findClaimedByDevice(this.db, deviceId);
    if (!display) return null;
    const { width, height, bitDepth, rotation } = toProfile(display);
    return { width, height, bitDepth, rotation };
  }

  /**
   * `POST /api/devices/{id}/reset`: the owner's display answers `reset_firmware: true` at its
   * next poll (once). 404/403 like every device route; a device that is not a display is 409.
   */
  async requestReset(userId: string, deviceId: string) {
    const device = await this.devices.owned(userId, deviceId);
    const display = device.transport === "http"
      ? await repo.findClaimedByDevice(this.db, deviceId)
      : undefined;
    if (!display) throw conflict("Only a display that polls (transport http) can be reset");
    await repo.updateDisplay(this.db, display.id, { reset_requested_at: new Date() });
    return { message: "The display resets itself at its next poll" };
  }

  /** The claimed display of one of the caller's devices: the device check, then 404. */
  private async ownedDisplay(userId: string, deviceId: string) {
    await this.devices.owned(userId, deviceId);
    const display = await repo.findClaimedByDevice(this.db, deviceId);
    if (!display) throw notFound("Device is not a display");
    return display;
  }

  /**
   * `POST /api/devices/enrollment-tokens`: a key made in advance; the first poll with it makes
   * a display of the caller, tied to that poll's MAC and named by `name`. Unused, it expires
   * after 24 h; a user holds at most 20 unused (429 over) and, with their displays, at most
   * `displaysPerUser` (409 over).
   */
  async createEnrollmentToken(userId: string, name?: string) {
    const token = randomToken(32);
    const expiresAt = new Date(Date.now() + CODE_TTL_MS);
    await this.db.transaction().execute(async (trx) => {
      await repo.lockUserDisplays(trx, userId);
      const unused = await repo.unusedEnrollments(trx, userId);
      if (unused.count >= UNUSED_ENROLLMENTS_MAX) {
        const wait = Math.max(1, Math.ceil((unused.firstExpiry!.getTime() - Date.now()) / 1000));
        throw new AppError(
          "rate_limited",
          `At most ${UNUSED_ENROLLMENTS_MAX} unused enrollment tokens; the next expires in ${wait} s`,
          { "Retry-After": String(wait) },
        );
      }
      await this.refuseOverLimit(trx, userId, 1);
      await repo.insertDisplay(trx, {
        id: uuidv7(),
        mac: null,
        key_hash: sha256Hex(token),
        status: "enrollment",
        code_expires_at: expiresAt,
        enrolled_by: userId,
        name: name?.trim() || null,
      });
    });
    return { token, expiresAt: expiresAt.toISOString() };
  }

  /**
   * The first poll with an enrollment token: a display claimed by the token's user, tied to the
   * poll's MAC and named as the token (401 without a MAC, once the token expired, or when the
   * MAC is another display's: an enrollment token never adopts a MAC that is claimed or
   * pending, CONTRACT.md "Display ownership and fair shares"; nothing changes then).
   */
  private async enroll(display: DisplayRow, mac: string | null): Promise<DisplayRow> {
    if (mac === null || !display.code_expires_at || display.code_expires_at <= new Date()) {
      throw unauthorized("Unknown display key");
    }
    return await this.db.transaction().execute(async (trx) => {
      const locked = await repo.lockById(trx, display.id);
      // Another poll with the same token got there first: it is that display's key now.
      if (locked?.status !== "enrollment") {
        if (locked?.status === "claimed" && locked.mac === mac) return locked;
        throw unauthorized("Unknown display key");
      }
      const userId = locked.enrolled_by!;
      await repo.lockUserDisplays(trx, userId);
      // A claimed display whose owner let it go (unbind) may be enrolled again; any other
      // pending or claimed display of the MAC refuses the token.
      for (const other of await repo.liveByMac(trx, mac)) {
        if (other.status === "pending") throw unauthorized("Unknown display key");
        if (other.device_id && await this.devices.ownerOf(trx, other.device_id)) {
          throw unauthorized("Unknown display key");
        }
      }
      const adopted = await this.devices.adoptDisplay(trx, mac, userId, locked.name);
      if (!adopted) throw unauthorized("Unknown display key");
      await repo.replaceClaimed(trx, mac, locked.id);
      const row = await repo.updateDisplay(trx, locked.id, {
        status: "claimed",
        mac,
        device_id: adopted.id,
        code_expires_at: null,
        claimed_at: new Date(),
      });
      return row!;
    });
  }

  /** The display of a key: pending or claimed; anything else (or a malformed key) is 401. */
  private async authenticate(token: string | null): Promise<DisplayRow> {
    if (token === null || !KEY.test(token.trim())) throw unauthorized("Unknown display key");
    const hash = sha256Hex(token.trim());
    // Cached only when found (a stream of unknown keys fills nothing).
    const display = await this.byKey.get(
      hash,
      (row) => row ? [tag.display(row.id)] : null,
      () => repo.findByKeyHash(this.db, hash),
    );
    if (!display || display.status === "replaced") throw unauthorized("Unknown display key");
    if (display.status === "claimed" && !display.device_id) {
      throw unauthorized("Unknown display key");
    }
    return display;
  }

  /** A fresh claim code and its expiry. */
  private codeFields() {
    return {
      friendly_id: newClaimCode(),
      code_expires_at: new Date(Date.now() + CODE_TTL_MS),
    };
  }

  /** Runs `work` in a transaction, again with a new code when the code was taken meanwhile. */
  private async withFreshCode(work: (trx: Trx) => Promise<DisplayRow>): Promise<DisplayRow> {
    for (let attempt = 0;; attempt++) {
      try {
        return await this.db.transaction().execute(work);
      } catch (error) {
        // Two setups of one MAC at once meet the pending-MAC index: the second one retries and
        // finds the first one's display.
        if (attempt < 4 && isUniqueViolation(error)) continue;
        throw error;
      }
    }
  }

  private reply(
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

  private urlOf(screen: Screen) {
    return this.store.signedGetUrl(screen.key, IMAGE_URL_TTL_SECONDS);
  }

  /** The claim screen: the code, where to claim it, how long it is valid. */
  private claimScreen(code: string) {
    const base = this.baseUrl();
    return this.screen(`claim:${code}:${base}`, {
      label: "Claim this display",
      headline: code,
      points: [
        `Claim it in the app at ${base} with the code ${code}`,
        "The code is valid for 24 hours; this screen changes once the display is yours",
      ],
      // One line that never wraps inside the path (the source line is clamped to one).
      source: `API: POST ${base}/api/devices/claim {"code":"${code}"}`,
    });
  }

  /** What a claimed display without a push shows, drawn for its panel when it is not an OG's. */
  private noPushScreen(panel: PanelSpec | null = null) {
    return this.screen("no-push", {
      label: "Ready",
      headline: "Nothing to show yet",
      points: ["This display is yours: send it a push and it appears at the next refresh"],
    }, panel);
  }

  /**
   * Draws a screen once (the `headline` template; 800x480, 1 bit, or `panel`) and stores it by
   * its hash.
   */
  private async screen(
    name: string,
    variables: Record<string, unknown>,
    panel: PanelSpec | null = null,
  ): Promise<Screen> {
    const id = panel
      ? `${name}@${panel.width}x${panel.height}x${panel.bitDepth}r${panel.rotation}`
      : name;
    const known = this.screens.get(id);
    if (known) return known;
    const bitmaps = await this.renderer.renderTemplate({
      name: "headline",
      variables,
      ...(panel ? { panel } : {}),
    });
    const digest = await crypto.subtle.digest("SHA-256", bitmaps.png as Uint8Array<ArrayBuffer>);
    const sha256 = new Uint8Array(digest).toHex();
    const key = screenKey(sha256);
    if (!(await this.store.head(key))) await this.store.put(key, bitmaps.png, "image/png");
    const screen = { key, sha256 };
    // Bounded: codes come and go; a miss only draws again.
    if (this.screens.size >= 1000) this.screens.clear();
    this.screens.set(id, screen);
    this.log.info("display screen drawn", { id: id.split(":")[0] });
    return screen;
  }
}

/**
 * The panel a poll's headers report: its model and size. TRMNL's Kindle client sends no `Model`
 * and asks for a landscape picture of its portrait framebuffer: `png-width` is the framebuffer's
 * height, `png-height` its width (models.ts, `kindle`).
 */
function panelReported(reported: Record<string, string>, model: string | null) {
  const side = (value: string | undefined) => value && /^\d+$/.test(value) ? Number(value) : null;
  const kindle = reported.model === undefined &&
    (reported["png-width"] !== undefined || /^trmnl-kindle\//i.test(reported["user-agent"] ?? ""));
  return {
    model: reported.model ?? (kindle ? "kindle" : model),
    reported_width: side(reported.width) ?? (kindle ? side(reported["png-height"]) : null),
    reported_height: side(reported.height) ?? (kindle ? side(reported["png-width"]) : null),
  };
}

/**
 * The panel the service's own screens are drawn for: null for an 800x480 1-bit panel (every
 * TRMNL firmware reads the common screen), else the display's profile.
 */
function screenPanel(row: DisplayRow): PanelSpec | null {
  const { width, height, bitDepth, rotation } = toProfile(row);
  if (width === 800 && height === 480 && bitDepth === 1 && rotation === 0) return null;
  return { width, height, bitDepth, rotation };
}

/** What a push's `image_url` signs: its push and expiry, apart from every other signature. */
function pictureMessage(pushId: string, expires: number): string {
  return `display-image\n${pushId}\n${expires}`;
}

/** CONTRACT.md: a display keeps its last 1,000 log entries, within 1 MiB. */
export const LOGS_KEPT = 1000;
export const LOG_BYTES_KEPT = 1024 * 1024;
/** CONTRACT.md: an entry is kept up to 4 KiB; a longer one is cut and marked. */
export const LOG_ENTRY_MAX_BYTES = 4096;
/** CONTRACT.md: unused enrollment tokens one user may hold. */
export const UNUSED_ENROLLMENTS_MAX = 20;

/**
 * An entry as it is kept: itself up to 4 KiB of JSON, else its JSON text cut to fit and marked
 * (`truncated`, the size it had), so the owner still reads its start.
 */
export function keptEntry(entry: Record<string, unknown>): Record<string, unknown> {
  const json = JSON.stringify(entry);
  const size = utf8Length(json);
  if (size <= LOG_ENTRY_MAX_BYTES) return entry;
  // Room for the marker's own fields; cut by characters, then by bytes until it fits.
  let excerpt = json.slice(0, LOG_ENTRY_MAX_BYTES - 128);
  while (utf8Length(excerpt) > LOG_ENTRY_MAX_BYTES - 128) excerpt = excerpt.slice(0, -64);
  return { truncated: true, bytes: size, excerpt };
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}
/** CONTRACT.md: `POST /api/log` bodies up to 64 KiB. */
export const LOG_BODY_LIMIT = 64 * 1024;
const LOG_PAGE = 20;
const LOG_PAGE_MAX = 50;

/** The entries of either log shape TRMNL's firmware sends; 400 for anything else. */
export function logEntries(body: unknown): Record<string, unknown>[] {
  const shape = body as { logs?: unknown; log?: { logs_array?: unknown } } | null;
  const list = Array.isArray(shape?.logs)
    ? shape.logs
    : Array.isArray(shape?.log?.logs_array)
    ? shape.log.logs_array
    : null;
  if (list === null) {
    throw badRequest('Body must be {"logs":[...]} or {"log":{"logs_array":[...]}}');
  }
  for (const entry of list) {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      throw badRequest("Each log entry must be a JSON object");
    }
    if (!isStorableJson(entry)) throw badRequest("A log entry cannot be stored (NUL or too deep)");
  }
  return list as Record<string, unknown>[];
}

/** CONTRACT.md: one indistinguishable error for every code that cannot be claimed. */
export const UNKNOWN_CODE = "Unknown or expired claim code";

function stripUndefined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
