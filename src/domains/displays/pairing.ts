/**
 * How a display comes to be someone's (CONTRACT.md "Displays people already own" and "Display
 * ownership and fair shares"): a setup with its MAC (a new key each time, a claim code), the
 * owner's claim of that code (attempts counted like passwords), a re-pair only its owner can
 * claim, and enrollment tokens for clients configured with a key by hand. A MAC identifies a
 * display and never proves who may own it (docs/security.md).
 */
import type { Db, Trx } from "../../schema.ts";
import { AppError, badRequest, conflict, notFound, unauthorized } from "../../errors.ts";
import { newClaimCode } from "../devices/claim_code.ts";
import type { DevicesService } from "../devices/service.ts";
import { isUniqueViolation } from "../../infra/db/errors.ts";
import { randomToken, sha256Hex } from "../../infra/lib/crypto.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import { sourceOf } from "../../infra/lib/source.ts";
import { reserveClaimAttempt } from "./claim_limits.ts";
import { normalizeMac, panelReported } from "./headers.ts";
import type { DisplayRow } from "./keys.ts";
import type { DisplayScreens } from "./screens.ts";
import * as repo from "./repository.ts";

/** A claim code is valid this long (CONTRACT.md). */
export const CODE_TTL_MS = 24 * 3600 * 1000;
/** CONTRACT.md: one indistinguishable error for every code that cannot be claimed. */
export const UNKNOWN_CODE = "Unknown or expired claim code";
/** CONTRACT.md: unused enrollment tokens one user may hold. */
export const UNUSED_ENROLLMENTS_MAX = 20;

/** `GET /api/setup`'s 200 body. */
export interface SetupReply {
  status: 200;
  api_key: string;
  friendly_id: string;
  image_url: string;
  message: string;
}

export interface PairingDeps {
  db: Db;
  devices: DevicesService;
  screens: DisplayScreens;
  /** DISPLAY_SETUPS_PER_MINUTE. */
  setupsPerMinute: number;
  /** DISPLAYS_PER_USER: displays one user may hold (claimed, enrolled, and unused tokens). */
  displaysPerUser: number;
  /** The service's public origin, named in the setup's message. */
  baseUrl: () => string;
}

export class DisplayPairing {
  private readonly db: Db;
  private readonly devices: DevicesService;
  private readonly screens: DisplayScreens;
  private readonly setupsPerMinute: number;
  private readonly displaysPerUser: number;
  private readonly baseUrl: () => string;

  constructor(deps: PairingDeps) {
    this.db = deps.db;
    this.devices = deps.devices;
    this.screens = deps.screens;
    this.setupsPerMinute = deps.setupsPerMinute;
    this.displaysPerUser = deps.displaysPerUser;
    this.baseUrl = deps.baseUrl;
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
    await this.countSetup(ip);
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
    const screen = await this.screens.claim(display.friendly_id!);
    return {
      status: 200,
      api_key: key,
      friendly_id: display.friendly_id!,
      image_url: await this.screens.urlOf(screen),
      message: `Claim this display with the code ${display.friendly_id} at ${this.baseUrl()}`,
    };
  }
  /**
   * A poll that sends no key, of a MAC no one holds (CONTRACT.md "Displays that send no key"): the
   * MAC's pending display, made as `setup` makes it and counted in the same per-source window, so
   * its claim screen shows a code that `setup` of the MAC answers too. It is given no new key: the
   * poll carries none, and a key a setup gave the display keeps working. A new display's key is
   * one nobody holds until a setup of the MAC answers a new one.
   */
  async keylessPending(mac: string, ip: string): Promise<DisplayRow> {
    await this.countSetup(ip);
    return await this.withFreshCode(async (trx) =>
      await repo.lockPendingByMac(trx, mac) ?? await repo.insertDisplay(trx, {
        id: uuidv7(),
        mac,
        key_hash: sha256Hex(randomToken(32)),
        api_key: null,
        status: "pending",
        ...this.codeFields(),
      })
    );
  }

  /** One more setup from `ip`'s source (DISPLAY_SETUPS_PER_MINUTE); 429 over the limit. */
  private async countSetup(ip: string) {
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
  async refuseOverLimit(trx: Trx, userId: string, adding = 0) {
    const held = await this.devices.countDisplays(trx, userId) +
      (await repo.unusedEnrollments(trx, userId)).count + adding;
    if (held > this.displaysPerUser) {
      throw conflict(`A user holds at most ${this.displaysPerUser} displays (DISPLAYS_PER_USER)`);
    }
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
  async enroll(display: DisplayRow, mac: string | null): Promise<DisplayRow> {
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

  /** A pending display whose code expired gets a fresh one (its poll renews it). */
  async renewedCode(display: DisplayRow): Promise<DisplayRow> {
    if (display.code_expires_at && display.code_expires_at.getTime() > Date.now()) return display;
    return await this.withFreshCode(async (trx) => {
      const locked = await repo.lockPendingByMac(trx, display.mac!);
      if (!locked || locked.id !== display.id) return display;
      return await repo.updateDisplay(trx, display.id, this.codeFields()) ?? display;
    });
  }
}
