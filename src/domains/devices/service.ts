/**
 * Devices as their owners see them (SPEC 2.7, 2.8, 3.6, 4.5) and as they report over MQTT
 * (CONTRACT.md topics). Authorization lives in `owned()`: every owner endpoint goes through it,
 * and its answers are the access module's rule for a device.
 */
import { type Log, silentLog } from "../../infra/lib/log.ts";
import type { Selectable } from "kysely";
import type { Db, Trx } from "../../schema.ts";
import { badRequest, conflict, notFound } from "../../errors.ts";
import * as access from "../../infra/access/mod.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import { newClaimCode } from "./claim_code.ts";
import { isStorableJson, isStorableText } from "./report_payload.ts";
import { tag } from "../../infra/db/cache/announced.ts";
import { ChangeFeed } from "../../infra/db/cache/feed.ts";
import type { TaggedCache } from "../../infra/db/cache/tagged_cache.ts";
import * as repo from "./repository.ts";
import { Batcher } from "../../infra/lib/batcher.ts";
import type { DevicesTable } from "./tables.ts";
import type { DeviceMessenger, DeviceNotice, DeviceOutbox, DeviceTransport } from "./transport.ts";
export type { DeviceMessenger, DeviceOutbox } from "./transport.ts";
import { mqttTransport } from "./transport_mqtt.ts";
import { displayThingName, toCommand, toDevice, toDeviceListItem, toHealth } from "./views.ts";

/** A device of another user is 403, an unknown one 404 (SPEC 4.5): the one kind that tells them apart. */
export const DEVICE = access.resource("device", {
  missing: { code: "not_found", message: "Device not found" },
  notOwned: { code: "forbidden", message: "You do not own this device" },
});

export type DeviceRow = Selectable<DevicesTable>;

/** A device leaving its owner (unbind, account deletion). */
export interface UnlinkedDevice {
  id: string;
  ownerId: string;
}

/**
 * What other domains do when a device leaves its owner: `inTransaction` in the unlinking
 * transaction (its pushes go), `afterCommit` once it committed (stored objects; failures are
 * only logged).
 */
export interface UnlinkReaction {
  inTransaction(trx: Trx, device: UnlinkedDevice): Promise<void>;
  afterCommit(device: UnlinkedDevice): Promise<void>;
}

/**
 * What a report's reactions first see of the device: a fleet's batched reports return only this
 * (parsing every updated row's state, a jsonb, was a tenth of such a poll's CPU, issue 40).
 */
export type ReportedDevice = Pick<DeviceRow, "id" | "owner_id">;

/**
 * What follows a report of an owned device (poll, heartbeat, state, status): the webhooks' device
 * events. `wants` looks at the updated row (a cheap check; most reports stop there), then
 * `inTransaction` runs in a transaction holding the device's row lock, with the row re-read under
 * it, so the reports of one device are reacted to one after the other, each on the latest state.
 */
export interface ReportReaction {
  /** The cheap check, on the reported device's id and owner only. */
  wants(device: ReportedDevice): Promise<boolean>;
  inTransaction(trx: Trx, device: DeviceRow): Promise<void>;
}

export interface DevicesOptions {
  /** Reactions to a device leaving its owner, in order. */
  onUnlink?: readonly UnlinkReaction[];
  /** Reactions to a report of an owned device, in order. */
  onReport?: readonly ReportReaction[];
  log?: Log;
  /** Invalidation of `ownedHead`'s cache; without it nothing is cached. */
  changes?: ChangeFeed;
  /**
   * Reactions to an MQTT device reporting its firmware version (`up/heartbeat`, `up/state`),
   * given the updated row: a firmware offer (issue 24). Failures are only logged.
   */
  onFirmwareReport?: ReadonlyArray<(device: DeviceRow) => Promise<unknown>>;
  /**
   * The other domains' transports (displays: `http`, `image_feed`, `trmnl_webhook`), filled once
   * every service exists; `mqtt` is this domain's own.
   */
  transports?: ReadonlyArray<readonly DeviceTransport[]>;
}

/** What `DevicesService` is built from (one object, like every domain's service). */
export interface DevicesDeps extends DevicesOptions {
  db: Db;
  messenger: DeviceMessenger;
  outbox: DeviceOutbox;
}

/** What the push fast path needs of a device: its owner and latest push. */
export type DeviceHead = Pick<DeviceRow, "id" | "owner_id" | "latest_push_id">;

/** SPEC 4.5: a nickname's and a text command's length in characters (code points). */
export const NICKNAME_MAX = 64;
export const TEXT_MAX = 1000;

export class DevicesService {
  private readonly onUnlink: readonly UnlinkReaction[];
  private readonly onFirmwareReport: ReadonlyArray<(device: DeviceRow) => Promise<unknown>>;
  private readonly onReport: readonly ReportReaction[];
  private readonly log: Log;
  /**
   * Owner and latest push by device id, dropped when either changes or the device is deleted
   * (unbind, promotion, account deletion; src/infra/db/cache/feed.ts).
   */
  private readonly heads: TaggedCache<DeviceHead | undefined>;
  /**
   * Devices by thing name for device messages, read in batches: a reconnecting fleet's burst of
   * `get_push` costs one query per few hundred devices (docs/decisions.md "The fleet burst").
   */
  private readonly things = new Batcher(
    (names: string[]) => repo.findDevicesByThings(this.db, names),
    // Each message is its own socket read: gathered over the loop's turn (issue 40).
    { maxBatch: 500, concurrency: 2, gather: "turn" },
  );
  /**
   * Displays' reports waiting for their write, by device (the newest wins), and the writes: a
   * fleet's polls share one statement per batch instead of one each (issue 40), and each poll
   * still answers after its own report is written.
   */
  private readonly displayReports = new Map<string, repo.DisplayReport>();
  private readonly displayReportWrites = new Batcher((ids: string[]) => {
    const reports = ids.flatMap((id) => {
      const report = this.displayReports.get(id);
      this.displayReports.delete(id);
      return report ? [report] : [];
    });
    return repo.reportDisplays(this.db, reports);
  });

  private readonly db: Db;
  private readonly mqtt: DeviceTransport;
  private readonly transports: ReadonlyArray<readonly DeviceTransport[]>;

  constructor(deps: DevicesDeps) {
    this.db = deps.db;
    this.mqtt = mqttTransport(deps.messenger, deps.outbox);
    this.transports = deps.transports ?? [];
    this.onUnlink = deps.onUnlink ?? [];
    this.onFirmwareReport = deps.onFirmwareReport ?? [];
    this.onReport = deps.onReport ?? [];
    this.log = deps.log ?? silentLog;
    this.heads = (deps.changes ?? ChangeFeed.disabled()).cache();
  }

  /** The adapter a device is reached through (its `transport`); unknown names fail loudly. */
  transportOf(device: Pick<DeviceRow, "transport">): DeviceTransport {
    if (device.transport === "mqtt") return this.mqtt;
    const found = this.transports.flat().find((transport) => transport.name === device.transport);
    if (!found) throw new Error(`No adapter for transport ${device.transport}`);
    return found;
  }

  /** Tells a device `notice` through its transport once `trx` commits. */
  notify(trx: Trx, device: DeviceRow, notice: DeviceNotice): Promise<void> {
    return this.transportOf(device).notify(trx, device, notice);
  }

  /**
   * A push of the device is rendered and waits (`push_ready`), in the render's transaction:
   * a device nobody polls has it published and delivered by its transport.
   */
  async pushReady(trx: Trx, deviceId: string, pushId: string): Promise<void> {
    const device = await repo.findDevice(trx, deviceId);
    if (device?.owner_id) await this.notify(trx, device, { kind: "push_ready", pushId });
  }

  /** `pushReady` for many pushes (one drawing stored for many devices): one read of them. */
  async pushesReady(trx: Trx, pushes: { deviceId: string; pushId: string }[]): Promise<void> {
    const devices = new Map(
      (await repo.findDevices(trx, [...new Set(pushes.map((p) => p.deviceId))]))
        .map((d) => [d.id, d]),
    );
    for (const { deviceId, pushId } of pushes) {
      const device = devices.get(deviceId);
      if (device?.owner_id) await this.notify(trx, device, { kind: "push_ready", pushId });
    }
  }

  /**
   * The one authorization check of owner endpoints (SPEC 4.5): 400 for a malformed id, 404
   * for an unknown device, 403 for a device that is not the caller's (`src/infra/access/mod.ts`).
   */
  async owned(userId: string, deviceId: string, db: Db = this.db): Promise<DeviceRow> {
    return access.owned(DEVICE, await repo.findDevice(db, deviceId), userId);
  }

  /** `owned`'s check on the device's owner and latest push only, cached (`GET .../push`). */
  async ownedHead(userId: string, deviceId: string): Promise<DeviceHead> {
    return access.owned(DEVICE, await this.head(deviceId), userId);
  }

  /**
   * A device's owner and latest push, unchecked and cached: for a display that authenticated
   * with its own key (its unchanged poll reads no database).
   */
  head(deviceId: string): Promise<DeviceHead | undefined> {
    return this.heads.get(
      deviceId,
      (head) => head ? [tag.device(head.id)] : null,
      async () => {
        const found = await repo.findDevice(this.db, deviceId);
        return found &&
          { id: found.id, owner_id: found.owner_id, latest_push_id: found.latest_push_id };
      },
    );
  }

  /** Same check on a locked row, for transactions that change the device. */
  async lockOwned(trx: Trx, userId: string, deviceId: string): Promise<DeviceRow> {
    return access.owned(DEVICE, await repo.lockDevice(trx, deviceId), userId);
  }

  /** Locks a device by id for a push transaction (MQTT paths, where the thing is the caller). */
  lock(trx: Trx, deviceId: string) {
    return repo.lockDevice(trx, deviceId);
  }

  /** Devices locked in id order (many at once), by id. */
  async lockMany(trx: Trx, deviceIds: string[]): Promise<Map<string, DeviceRow>> {
    return new Map((await repo.lockDevices(trx, deviceIds)).map((d) => [d.id, d]));
  }

  /** `setLatestPush` for many devices in one statement. */
  async setLatestPushes(trx: Trx, pairs: { deviceId: string; pushId: string }[], at: Date) {
    await repo.setLatestPushes(trx, pairs, at);
  }

  /**
   * SPEC 3.6 binding, on a device row the binding transaction has locked: the caller becomes
   * the owner, boundAt is now, the claim code is cleared. Undefined when it was bound meanwhile.
   */
  /**
   * The device row with this hwId, locked FOR UPDATE in the caller's transaction (NFC binding:
   * of two binders exactly one wins), or undefined.
   */
  lockByHwId(trx: Trx, hwId: string) {
    return repo.lockDeviceByHwId(trx, hwId);
  }

  async bindTo(trx: Trx, deviceId: string, userId: string) {
    const row = await repo.bindDevice(trx, deviceId, userId);
    return row && toDevice(row);
  }

  /**
   * A claimed display becomes a device of `userId` (CONTRACT.md "Displays people already own"):
   * created for its MAC (`hwId`, `thingName` `display-<hwId>`, transport `http`), or taken up
   * again once its previous owner let it go (unbind). Null, with nothing changed, when another
   * user owns it or the hardware id is not a display's (CONTRACT.md "Display ownership and fair
   * shares": a MAC never moves a display to someone else).
   */
  async adoptDisplay(trx: Trx, hwId: string, userId: string, nickname: string | null = null) {
    let row = await repo.lockDeviceByHwId(trx, hwId);
    if (!row) {
      row = await repo.insertDisplayDevice(trx, {
        id: uuidv7(),
        hw_id: hwId,
        thing_name: displayThingName(hwId),
        owner_id: userId,
        nickname,
      }) ?? await repo.lockDeviceByHwId(trx, hwId);
      if (!row) throw new Error("display device vanished");
    } else if (row.transport === "http" && row.owner_id === null) {
      row = await repo.bindDevice(trx, row.id, userId);
      if (row && nickname !== null) row = await repo.updateDevice(trx, row.id, { nickname });
    }
    if (row?.transport !== "http" || row.owner_id !== userId) return null;
    return toDevice(row);
  }

  /** The owner of a device, locked in the caller's transaction (null: nobody; undefined: none). */
  async ownerOf(trx: Trx, deviceId: string): Promise<string | null | undefined> {
    return (await repo.lockDevice(trx, deviceId))?.owner_id;
  }

  /** How many displays (devices polling over HTTP or behind another provider) a user holds. */
  countDisplays(db: Db, userId: string): Promise<number> {
    return repo.countOwnedDisplays(db, userId);
  }

  /**
   * A display behind another provider (CONTRACT.md), bound to its creator at once: `transport`
   * names its adapter; `hwId` and `thingName` are `external-<id>` (it has no hardware id).
   */
  async createExternal(trx: Trx, userId: string, transport: string, nickname: string | null) {
    const id = uuidv7();
    const now = new Date();
    return await repo.insertDevice(trx, {
      id,
      hw_id: `external-${id}`,
      thing_name: `external-${id}`,
      owner_id: userId,
      nickname,
      transport,
      bound_at: now,
      created_at: now,
      updated_at: now,
    });
  }

  /** A device behind another provider fetched its picture: it is seen now (online). */
  async reportSeen(deviceId: string) {
    const now = new Date();
    await this.report((db) => repo.updateDevice(db, deviceId, { last_seen_at: now, online: true }));
  }

  /**
   * What a display's poll reports (its headers): battery, firmware, raw values in `state`, and
   * the display is seen now.
   */
  async reportDisplay(deviceId: string, state: Record<string, string>) {
    this.displayReports.set(deviceId, {
      id: deviceId,
      state,
      at: new Date(),
      ...vitals(displayVitals(state)),
    });
    await this.react(await this.displayReportWrites.load(deviceId));
  }

  /**
   * A display just claimed starts from what it reported while pending (its headers, when it was
   * last seen), in the claim's transaction: the claim answers what is known.
   */
  async seedDisplayReport(
    trx: Trx,
    deviceId: string,
    state: Record<string, string>,
    seenAt: Date,
  ) {
    const row = await repo.updateDevice(trx, deviceId, {
      state,
      state_updated_at: seenAt,
      last_seen_at: seenAt,
      online: true,
      ...vitals(displayVitals(state)),
    });
    return row && toDevice(row);
  }

  /**
   * Runs a report's update (one statement, as before reactions existed), then the reactions
   * that want it, each in a transaction on the device's locked row.
   */
  private async report(update: (db: Db) => Promise<DeviceRow | undefined>) {
    return await this.react(await update(this.db));
  }

  /** The reactions to a report that wrote `row`, each in a transaction on its locked row. */
  private async react<R extends ReportedDevice>(row: R | undefined) {
    if (!row?.owner_id) return row;
    for (const reaction of this.onReport) {
      if (!(await reaction.wants(row))) continue;
      await this.db.transaction().execute(async (trx) => {
        const locked = await repo.lockDevice(trx, row.id);
        if (locked?.owner_id) await reaction.inTransaction(trx, locked);
      });
    }
    return row;
  }

  /** Sets the device's latest push (SPEC 3.1 promotion); null clears it. */
  async setLatestPush(trx: Trx, deviceId: string, pushId: string | null, at: Date | null) {
    await repo.updateDevice(trx, deviceId, { latest_push_id: pushId, latest_push_at: at });
  }

  /** A device by id, unchecked: for a display that authenticated with its own key. */
  byId(deviceId: string) {
    return repo.findDevice(this.db, deviceId);
  }

  /** A device by thing name (MQTT). */
  byThing(thingName: string): Promise<DeviceRow | undefined> {
    return this.things.load(thingName);
  }

  /** Current credential versions of registered things (embedded broker authentication). */
  credentialVersions(thingNames: string[]) {
    return repo.credentialVersions(this.db, thingNames);
  }

  async list(userId: string) {
    const now = Date.now();
    return (await repo.listOwnedDevices(this.db, userId)).map((row) => toDeviceListItem(row, now));
  }

  async get(userId: string, deviceId: string) {
    return toDevice(await this.owned(userId, deviceId));
  }

  /** SPEC 4.5: the state as a JSON object; 404 when the device never reported one. */
  async getState(userId: string, deviceId: string): Promise<Record<string, unknown>> {
    const row = await this.owned(userId, deviceId);
    if (row.state === null || row.state === undefined) throw notFound("No state reported yet");
    return row.state as Record<string, unknown>;
  }

  /** SPEC 4.5: falls back to hwId when unset. */
  async getNickname(userId: string, deviceId: string) {
    const row = await this.owned(userId, deviceId);
    return { nickname: row.nickname ?? row.hw_id };
  }

  /** SPEC 4.5: an empty string clears the nickname. */
  async setNickname(userId: string, deviceId: string, nickname: string) {
    const value = nickname.trim();
    if ([...value].length > NICKNAME_MAX) {
      throw badRequest(`Nickname is over ${NICKNAME_MAX} characters`);
    }
    await this.owned(userId, deviceId);
    await repo.updateDevice(this.db, deviceId, { nickname: value === "" ? null : value });
    return { message: value === "" ? "Nickname cleared" : "Nickname updated" };
  }

  async getHealth(userId: string, deviceId: string) {
    const device = await this.owned(userId, deviceId);
    const extra = await this.transportOf(device).health?.(device);
    return { ...toHealth(device), ...extra };
  }

  /**
   * SPEC 3.6 unbind: the device becomes claimable again (owner and binding cleared, a fresh
   * claim code, its pushes gone), and the device is told `unbound` by its transport, once the
   * unbinding committed. The unbinding does not depend on the broker.
   */
  async unbind(userId: string, deviceId: string) {
    const row = await this.db.transaction().execute(async (trx) => {
      const device = await this.lockOwned(trx, userId, deviceId);
      await this.unlink(trx, device, userId);
      return device;
    });
    await this.afterUnlink([{ id: row.id, ownerId: userId, thingName: row.thing_name }]);
    return { message: "Device unbound" };
  }

  /**
   * Clears the owner of a locked device, runs the other domains' unlink reactions and tells the
   * device `unbound` through its transport (once the transaction commits).
   */
  private async unlink(trx: Trx, device: DeviceRow, ownerId: string) {
    for (const reaction of this.onUnlink) {
      await reaction.inTransaction(trx, { id: device.id, ownerId });
    }
    await this.notify(trx, device, { kind: "unbound" });
    await repo.updateDevice(trx, device.id, {
      owner_id: null,
      bound_at: null,
      claim_code: newClaimCode(),
      nickname: null,
      latest_push_id: null,
      latest_push_at: null,
    });
  }

  /**
   * SPEC 4.1 account deletion: every device of the user is unlinked, not deleted, and its
   * `unbound` enqueued. Returns what follows the commit: the reactions' clean-up.
   */
  async unlinkAllOf(trx: Trx, userId: string): Promise<() => Promise<void>> {
    const unlinked: Array<UnlinkedDevice & { thingName: string }> = [];
    for (const device of await repo.lockOwnedDevices(trx, userId)) {
      await this.unlink(trx, device, userId);
      unlinked.push({ id: device.id, ownerId: userId, thingName: device.thing_name });
    }
    return () => this.afterUnlink(unlinked);
  }

  /** After an unlink committed: the other domains clean up. */
  private async afterUnlink(devices: Array<UnlinkedDevice & { thingName: string }>) {
    for (const device of devices) {
      for (const reaction of this.onUnlink) {
        await reaction.afterCommit(device).catch((error) =>
          this.log.info("unbind clean-up failed", { deviceId: device.id, error: String(error) })
        );
      }
    }
  }

  /**
   * SPEC 4.5 cmd: `text` only. The command is recorded `delivered` only after the broker
   * acknowledged it; with the broker down the call fails with 503 and nothing is recorded.
   */
  async sendCommand(userId: string, deviceId: string, input: { kind: string; text?: string }) {
    if (input.kind !== "text") throw badRequest(`Command kind ${input.kind} is not supported`);
    if (typeof input.text !== "string" || input.text.length === 0) {
      throw badRequest("text is required for a text command");
    }
    if ([...input.text].length > TEXT_MAX) throw badRequest(`text is over ${TEXT_MAX} characters`);
    // Checked before publishing: the record could not be stored (PostgreSQL refuses NUL), and a
    // command the device got must never answer an error.
    if (input.text.includes("\u0000")) throw badRequest("text must not contain NUL characters");
    const device = await this.owned(userId, deviceId);
    // CONTRACT.md: only an MQTT device has a channel for commands (a display polls, a provider
    // shows pictures).
    const { publish } = this.transportOf(device);
    if (!publish) {
      throw conflict(`Commands are not supported by this device (transport ${device.transport})`);
    }
    const id = uuidv7();
    const payload = { id, kind: "text", text: input.text };
    await publish(device, "down/cmd", payload);
    const row = await repo.insertCommand(this.db, {
      id,
      device_id: device.id,
      user_id: userId,
      thing_name: device.thing_name,
      kind: "text",
      payload,
      status: "delivered",
    });
    return toCommand(row);
  }

  /** `up/state`: any JSON object; `battery` and `firmware` fields also update the columns. */
  async reportState(thingName: string, state: unknown) {
    if (typeof state !== "object" || state === null || Array.isArray(state)) return;
    // What jsonb cannot store (NUL, lone surrogates, deep nesting) is ignored, not an error.
    if (!isStorableJson(state)) return;
    const fields = state as Record<string, unknown>;
    const now = new Date();
    const reported = vitals(fields);
    const row = await this.report((db) =>
      repo.updateDeviceByThing(db, thingName, {
        state,
        state_updated_at: now,
        last_seen_at: now,
        ...reported,
      })
    );
    if (row && reported.firmware !== undefined) await this.firmwareReported(row);
  }

  /** `up/heartbeat`: marks the device seen now (online for 3 minutes). */
  async heartbeat(thingName: string, body: unknown) {
    const fields = typeof body === "object" && body !== null ? body as Record<string, unknown> : {};
    const reported = vitals(fields);
    const row = await this.report((db) =>
      repo.updateDeviceByThing(db, thingName, {
        last_seen_at: new Date(),
        online: true,
        ...reported,
      })
    );
    if (row && reported.firmware !== undefined) await this.firmwareReported(row);
  }

  private async firmwareReported(row: DeviceRow) {
    for (const reaction of this.onFirmwareReport) {
      await reaction(row).catch((error) =>
        this.log.info("firmware report reaction failed", { deviceId: row.id, error: String(error) })
      );
    }
  }

  /** `up/status`: "online" / "offline" (the retained last will). */
  async reportStatus(thingName: string, status: unknown) {
    if (status !== "online" && status !== "offline") return;
    await this.report((db) =>
      repo.updateDeviceByThing(db, thingName, {
        last_status: status,
        online: status === "online",
        ...(status === "online" ? { last_seen_at: new Date() } : {}),
      })
    );
  }
}

/** Battery (integer 0-100) and firmware (short string) from a report; invalid values ignored. */
function vitals(fields: Record<string, unknown>): Partial<Pick<DeviceRow, "battery" | "firmware">> {
  const out: Partial<Pick<DeviceRow, "battery" | "firmware">> = {};
  const battery = fields.battery;
  if (typeof battery === "number" && Number.isFinite(battery)) {
    out.battery = Math.max(0, Math.min(100, Math.round(battery)));
  }
  if (
    typeof fields.firmware === "string" && fields.firmware.length <= 64 &&
    isStorableText(fields.firmware)
  ) {
    out.firmware = fields.firmware;
  }
  return out;
}

/**
 * Battery percent from a display's headers: `percent-charged` as is, else `Battery-Voltage`
 * over a Li-ion cell's range (3.0 V empty, 4.2 V full); firmware from `FW-Version`.
 */
function displayVitals(state: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const percent = Number(state["percent-charged"]);
  const volts = Number(state["battery-voltage"]);
  if (state["percent-charged"] !== undefined && Number.isFinite(percent)) out.battery = percent;
  else if (state["battery-voltage"] !== undefined && Number.isFinite(volts) && volts > 0) {
    out.battery = volts > 5 ? volts : ((volts - 3.0) / 1.2) * 100;
  }
  if (state["fw-version"]) out.firmware = state["fw-version"];
  return out;
}
