/**
 * Playlists (issue 37, CONTRACT.md "Screens that keep themselves current"): a user's rotation of
 * plugins and mashups, run on any number of their devices. Each item coming due becomes a
 * `plugin` push of the device (drawn for its panel by the push render job; the same content for
 * the same panel is drawn once for every device showing it) and is shown at once when rendered,
 * so delivery, history, webhooks and MQTT `new_push` work as for any push.
 *
 * The rotation of a device is a `playlist_devices` row: its current item and when it ends. A
 * delayed job advances it then; the minute's sweep advances any device whose job was lost.
 * Advancing locks the row, so two workers never advance one device twice. The owner's own push
 * holds the rotation for the current item's duration (`hold_until`); a sleeping display gets no
 * render (the advance waits for its wake-up).
 */
import type { Selectable } from "kysely";
import type { Db, Trx } from "../../schema.ts";
import { badRequest } from "../../errors.ts";
import * as access from "../../infra/access/mod.ts";
import { isUuid, uuidv7 } from "../../infra/lib/ids.ts";
import { type Log, silentLog } from "../../infra/lib/log.ts";
import type { Jobs } from "../../infra/jobs/types.ts";
import { tag } from "../../infra/db/cache/announced.ts";
import { ChangeFeed } from "../../infra/db/cache/feed.ts";
import type { TaggedCache } from "../../infra/db/cache/tagged_cache.ts";
import type { DevicesService } from "../devices/service.ts";
import type { NewPush, PushesService } from "../pushes/service.ts";
import type { PluginsService } from "../plugins/service.ts";
import { PLUGIN_PUSH_TEMPLATE } from "../plugins/service.ts";
import {
  type CreatePlaylistInput,
  DEFAULT_DURATION_SECONDS,
  MAX_PLAYLISTS,
  type PlaylistItem,
  pluginsOf,
  type UpdatePlaylistInput,
} from "./inputs.ts";
import { type AdvanceJob, playlistAdvanceQueue } from "./queues.ts";
import * as repo from "./repository.ts";
import { jsonb } from "./repository.ts";
import { nextDue } from "./schedule.ts";
import type { PlaylistsTable } from "./tables.ts";
import { type Playlist, toPlaylist } from "./views.ts";

/** What an owner check of this kind answers (src/infra/access/mod.ts). */
export const PLAYLIST = access.hidden("playlist", "Playlist not found");

/** CONTRACT.md: playlist pushes beyond the newest 50 of a device are deleted. */
export const KEPT_PUSHES = 50;
/** The param a playlist's push carries (the history's `source: "playlist"`). */
export const PLAYLIST_PARAM = "playlistId";
/** How soon a device with no item due looks again. */
const IDLE_SECONDS = 60;
/** An item ended this long ago without its job: the sweep advances it. */
const SWEEP_GRACE_MS = 10_000;
/** How much sooner than its end an item may end to advance with its playlist's other devices. */
const ALIGN_MS = 5_000;
/** Devices advanced together in one transaction (the next advance takes the rest). */
const TOGETHER_BATCH = 200;
/** Devices one sweep advances (the next minute's takes the rest). */
const SWEEP_BATCH = 500;

type PlaylistRow = Selectable<PlaylistsTable>;
/** A device's rotation as locked, with its playlist's name, time zone and items. */
type Rotation = NonNullable<Awaited<ReturnType<typeof repo.lockRotation>>>;
/** A rotation's next item: its place, its plugins and how long it shows. */
interface NextItem {
  index: number;
  item: PlaylistItem;
  pluginIds: string[];
  seconds: number;
}

export interface PlaylistsDeps {
  db: Db;
  jobs: Jobs;
  devices: DevicesService;
  pushes: PushesService;
  plugins: PluginsService;
  /** Seconds until a device's display wakes when it sleeps now, else null. */
  secondsAsleep: (deviceId: string) => Promise<number | null>;
  /**
   * `secondsAsleep` of many devices in one read, in `db` (the advance's transaction): those
   * asleep, by device. Without it each device advances alone.
   */
  secondsAsleepOf?: (deviceIds: string[], db: Db) => Promise<Map<string, number>>;
  /** Invalidation of the poll's rotation cache; without it nothing is cached. */
  changes?: ChangeFeed;
  log?: Log;
  now?: () => Date;
}

export class PlaylistsService {
  private readonly db: Db;
  private readonly jobs: Jobs;
  private readonly log: Log;
  private readonly now: () => Date;
  /**
   * When each device's current item ends, by device (null: no playlist), for the display poll's
   * `refresh_rate`: dropped when its rotation row changes (migrations/1030), so a poll reads no
   * database for it, with a playlist or without.
   */
  private readonly endings: TaggedCache<number | null>;

  constructor(private readonly deps: PlaylistsDeps) {
    this.db = deps.db;
    this.jobs = deps.jobs;
    this.log = deps.log ?? silentLog;
    this.now = deps.now ?? (() => new Date());
    this.endings = (deps.changes ?? ChangeFeed.disabled()).cache();
  }

  /** The user's playlist, or 404 (unknown, or another user's). */
  private async row(userId: string, id: string): Promise<PlaylistRow> {
    return access.found(PLAYLIST, isUuid(id) ? await repo.findPlaylist(this.db, userId, id) : null);
  }

  /** Every plugin an item names must be the caller's: 400 naming the item otherwise. */
  private async checkPlugins(userId: string, items: readonly PlaylistItem[]) {
    const mine = new Set((await this.deps.plugins.list(userId)).map((p) => p.id));
    items.forEach((item, i) => {
      const unknown = pluginsOf(item).find((id) => !mine.has(id));
      if (unknown) throw badRequest(`items.${i}: plugin ${unknown} not found`);
    });
  }

  /** `POST /api/playlists`: 201; at most MAX_PLAYLISTS a user. */
  async create(userId: string, input: CreatePlaylistInput): Promise<Playlist> {
    await this.checkPlugins(userId, input.items);
    const row = await this.db.transaction().execute(async (trx) => {
      // Counted under the user's rows' lock: two concurrent creates cannot both pass.
      await trx.selectFrom("playlists").select("id").where("user_id", "=", userId).forUpdate()
        .execute();
      if (await repo.countPlaylists(trx, userId) >= MAX_PLAYLISTS) {
        throw badRequest(`At most ${MAX_PLAYLISTS} playlists per user`);
      }
      return await repo.insertPlaylist(trx, {
        id: uuidv7(),
        user_id: userId,
        name: input.name,
        time_zone: input.timeZone ?? "UTC",
        items: jsonb(input.items),
      });
    });
    return toPlaylist(row);
  }

  async list(userId: string): Promise<Playlist[]> {
    return await this.withDevices(await repo.listPlaylists(this.db, userId));
  }

  async get(userId: string, id: string): Promise<Playlist> {
    return (await this.withDevices([await this.row(userId, id)]))[0];
  }

  /** The playlists as the API shows them, each with the user's devices running it. */
  private async withDevices(rows: PlaylistRow[]): Promise<Playlist[]> {
    const running = await repo.devicesRunning(this.db, rows.map((row) => row.id));
    return rows.map((row) => toPlaylist(row, running.get(row.id)));
  }

  /**
   * `PUT /api/playlists/{id}`: any fields. Its devices start again from its first due item (an
   * index into the old list means nothing in the new one).
   */
  async update(userId: string, id: string, input: UpdatePlaylistInput): Promise<Playlist> {
    await this.row(userId, id);
    if (input.items) await this.checkPlugins(userId, input.items);
    const row = await this.db.transaction().execute(async (trx) => {
      const updated = await repo.updatePlaylist(trx, id, {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.timeZone !== undefined ? { time_zone: input.timeZone } : {}),
        ...(input.items !== undefined ? { items: jsonb(input.items) } : {}),
        updated_at: this.now(),
      });
      if (!updated) throw access.missing(PLAYLIST);
      await this.jobs.send(playlistAdvanceQueue, { playlistId: id }, { trx });
      return updated;
    });
    return (await this.withDevices([row]))[0];
  }

  /** `DELETE /api/playlists/{id}`: 204; its devices stop (their rows go with it). */
  async delete(userId: string, id: string): Promise<void> {
    if (!isUuid(id) || !await repo.deletePlaylist(this.db, userId, id)) {
      throw access.missing(PLAYLIST);
    }
  }

  /** `GET /api/devices/{id}/playlist`: 403/404 for the device like every device route. */
  async assignment(userId: string, deviceId: string): Promise<{ playlistId: string | null }> {
    await this.deps.devices.owned(userId, deviceId);
    return { playlistId: (await repo.findAssignment(this.db, deviceId))?.playlist_id ?? null };
  }

  /**
   * `PUT /api/devices/{id}/playlist`: the device runs the playlist from its first due item now
   * (or stops, for null); 403/404 for the device, 404 for another user's playlist.
   */
  async assign(userId: string, deviceId: string, playlistId: string | null) {
    await this.deps.devices.owned(userId, deviceId);
    if (playlistId === null) {
      await repo.unassign(this.db, deviceId);
      return { playlistId: null };
    }
    await this.row(userId, playlistId);
    await this.db.transaction().execute(async (trx) => {
      const now = this.now();
      await repo.assign(trx, {
        device_id: deviceId,
        playlist_id: playlistId,
        user_id: userId,
        item_ends_at: now,
        updated_at: now,
      });
      await this.jobs.send(playlistAdvanceQueue, { deviceId }, { trx });
    });
    return { playlistId };
  }

  /** The handler of `playlistAdvanceQueue`. */
  async handle(job: AdvanceJob): Promise<void> {
    if ("deviceId" in job && job.along?.length) {
      // Devices advanced together end together: the first one ended takes the others with it
      // (those it did not, moved elsewhere or held meanwhile, have jobs of their own).
      let due = await repo.endedAmong(this.db, [job.deviceId, ...job.along], this.now());
      while (due.length > 0) {
        await this.advanceTogether(due[0]);
        due = await repo.endedAmong(this.db, due.slice(1), this.now());
      }
    } else if ("deviceId" in job) {
      await this.advanceTogether(job.deviceId);
    } else if ("playlistId" in job) {
      for (const id of await repo.devicesOf(this.db, job.playlistId)) await this.advance(id, true);
    } else {
      for (const id of await repo.devicesShowing(this.db, job.pluginId)) {
        await this.advance(id, false, true);
      }
    }
  }

  /** The minute's sweep: devices whose item ended without their job having advanced them. */
  async sweep(): Promise<number> {
    const due = await repo.overdue(this.db, this.now(), SWEEP_GRACE_MS, SWEEP_BATCH);
    for (const deviceId of due) await this.advance(deviceId);
    // A polling plugin on a long item is fetched again by its refresh interval; new data redraws
    // the devices showing it (plugins' `pluginChanged` hook, as a webhook post does).
    await this.deps.plugins.refreshStale(await repo.shownPlugins(this.db, SWEEP_BATCH));
    return due.length;
  }

  /**
   * Moves a device to its next due item when its current one has ended (or at once, `restart`:
   * from the first due item), or draws its current item again (`redraw`: its data changed). In
   * one transaction holding the rotation's row lock: the push and the next advance's job exist
   * only together, and a second worker racing this one finds the item not yet ended. Returns
   * the push made, if any.
   */
  async advance(deviceId: string, restart = false, redraw = false): Promise<string | null> {
    // Read before the transaction (PGlite has one connection: no query beside it).
    const asleep = await this.deps.secondsAsleep(deviceId);
    const pushId = await this.db.transaction().execute((trx) =>
      this.advanceIn(trx, deviceId, asleep, { restart, redraw })
    );
    if (pushId) await this.trim([deviceId]);
    return pushId;
  }

  /**
   * The rotations' current item from `now` for `seconds`, and the job that advances them then
   * (one for all: their items end together).
   */
  private async rotateTo(
    trx: Trx,
    deviceIds: string[],
    next: { index: number; pluginIds: string[]; seconds: number },
    now: Date,
  ) {
    await repo.updateRotations(trx, deviceIds, {
      item_index: next.index,
      plugin_ids: next.pluginIds,
      hold_until: null,
      item_ends_at: new Date(now.getTime() + next.seconds * 1000),
      updated_at: now,
    });
    for (let i = 0; i < deviceIds.length; i += TOGETHER_BATCH) {
      const [deviceId, ...along] = deviceIds.slice(i, i + TOGETHER_BATCH);
      await this.jobs.send(
        playlistAdvanceQueue,
        along.length ? { deviceId, along } : { deviceId },
        { trx, startAfterSeconds: next.seconds },
      );
    }
  }

  /**
   * A device's advance (its item has ended) with the devices of its playlist whose items end
   * with it, within a tenth of the shortest item (at most `ALIGN_MS`): one transaction for all
   * of them, so their pushes wait for one drawing together (the render job then stores it for
   * all at once, pushes/render_job.ts) and their next items end at the same moment: devices
   * assigned one after another converge on one schedule, and a playlist on a thousand displays
   * advances in a few transactions, not a thousand.
   */
  async advanceTogether(deviceId: string): Promise<void> {
    // Read without a lock: a job whose device was advanced with another's (or already) ends here.
    const own = await repo.findAssignment(this.db, deviceId);
    if (!own || own.item_ends_at > this.now()) return;
    const asleepOf = this.deps.secondsAsleepOf;
    if (!asleepOf || (own.hold_until !== null && own.hold_until > this.now())) {
      await this.advance(deviceId);
      return;
    }
    const advanced = await this.db.transaction().execute(async (trx) => {
      // One advance of a playlist's devices at a time: the next finds them advanced.
      await repo.lockPlaylistAdvance(trx, own.playlist_id);
      const now = this.now();
      const along = await repo.endingAlong(trx, deviceId, now, ALIGN_MS, TOGETHER_BATCH);
      if (along.length === 0) {
        const asleep = (await asleepOf([deviceId], trx)).get(deviceId) ?? null;
        const pushId = await this.advanceIn(trx, deviceId, asleep, {});
        return pushId ? [deviceId] : [];
      }
      const shortest = Math.min(
        ...along[0].items.map((item) => item.durationSeconds ?? DEFAULT_DURATION_SECONDS),
      );
      const early = Math.min(ALIGN_MS, shortest * 100);
      // Its own rotation first (waited for, before this takes the user's render lock, as every
      // advance does), then the others in device order.
      const ids = [
        deviceId,
        ...along.filter((row) => row.item_ends_at.getTime() <= now.getTime() + early)
          .map((row) => row.device_id).sort(),
      ];
      const asleep = await asleepOf(ids, trx);
      const mine = await this.advanceIn(trx, deviceId, asleep.get(deviceId) ?? null, {});
      // A rotation another transaction holds is left to it.
      const others = await this.advanceOthersIn(trx, ids.slice(1), asleep, early);
      return mine ? [deviceId, ...others] : others;
    });
    await this.trim(advanced);
  }

  /** Keeps the devices' playlist histories to `KEPT_PUSHES` each (a failure is logged). */
  private async trim(deviceIds: string[]) {
    if (deviceIds.length === 0) return;
    await this.deps.pushes.trimScheduled(deviceIds, PLAYLIST_PARAM, KEPT_PUSHES).catch((e) =>
      this.log.error("playlist history trim failed", {
        deviceId: deviceIds[0],
        devices: deviceIds.length,
        error: String(e),
      })
    );
  }

  /**
   * `advance` in the caller's transaction; `early`: an item ending within that many ms counts
   * as ended; `skipLocked`: a rotation another transaction holds is left alone (null).
   */
  private async advanceIn(
    trx: Trx,
    deviceId: string,
    asleep: number | null,
    options: { restart?: boolean; redraw?: boolean; early?: number; skipLocked?: boolean },
  ): Promise<string | null> {
    const state = await repo.lockRotation(trx, deviceId, options.skipLocked);
    if (!state) return null;
    const now = this.now();
    const next = await this.nextOf(trx, state, asleep, now, options);
    if (!next) return null;
    if (!options.redraw) await this.rotateTo(trx, [deviceId], next, now);
    // Last: it takes the user's render lock (fair shares), held from here to the commit, which
    // every advance of the user's devices waits for; the rotation's own writes come first.
    const push = await this.deps.pushes.create(this.pushOf(state, deviceId, next), trx);
    return push.id;
  }

  /**
   * `advanceIn` of a group's other devices (`skipLocked`, `early`) in a few statements for all:
   * one lock of their rotations, one update and one insert of advance jobs per next item, one
   * insert of their pushes and one of their render jobs. A group of 200 was ~1,400 statements
   * in 1-1.9 s holding its playlist's lock (issue 40). Returns the devices given a push.
   */
  private async advanceOthersIn(
    trx: Trx,
    deviceIds: string[],
    asleep: Map<string, number>,
    early: number,
  ): Promise<string[]> {
    const now = this.now();
    const groups = new Map<string, { state: Rotation; next: NextItem; ids: string[] }>();
    for (const state of await repo.lockRotations(trx, deviceIds)) {
      const next = await this.nextOf(trx, state, asleep.get(state.device_id) ?? null, now, {
        early,
      });
      if (!next) continue;
      const key = `${state.playlist_id}:${next.index}`;
      const group = groups.get(key);
      if (group) group.ids.push(state.device_id);
      else groups.set(key, { state, next, ids: [state.device_id] });
    }
    for (const { next, ids } of groups.values()) await this.rotateTo(trx, ids, next, now);
    const made: string[] = [];
    for (const { state, next, ids } of groups.values()) {
      await this.deps.pushes.createScheduled(ids.map((id) => this.pushOf(state, id, next)), trx);
      made.push(...ids);
    }
    return made;
  }

  /**
   * What a locked rotation shows next, or null when it shows nothing new now: its item has not
   * ended, or it waits (a hold, a sleep: written here), or its schedule is empty (it looks again
   * in a minute, written here).
   */
  private async nextOf(
    trx: Trx,
    state: Rotation,
    asleep: number | null,
    now: Date,
    options: { restart?: boolean; redraw?: boolean; early?: number },
  ): Promise<NextItem | null> {
    const { restart = false, redraw = false, early = 0 } = options;
    const deviceId = state.device_id;
    const held = state.hold_until !== null && state.hold_until > now;
    if (redraw && (held || state.item_index < 0)) return null;
    if (!redraw && !restart && state.item_ends_at.getTime() > now.getTime() + early) {
      return null;
    }
    if (held && !redraw) return await this.wait(trx, deviceId, state.hold_until!, now);
    if (asleep !== null) {
      return await this.wait(trx, deviceId, new Date(now.getTime() + asleep * 1000), now);
    }
    const items = state.items;
    const index = redraw
      ? state.item_index
      : nextDue(items, state.time_zone, restart ? -1 : state.item_index, now);
    const item = items[index];
    if (!item) {
      // An empty schedule shows nothing new: the device keeps what it shows and looks again.
      await this.rotateTo(
        trx,
        [deviceId],
        { index: -1, pluginIds: [], seconds: IDLE_SECONDS },
        now,
      );
      return null;
    }
    return {
      index,
      item,
      pluginIds: pluginsOf(item),
      seconds: item.durationSeconds ?? DEFAULT_DURATION_SECONDS,
    };
  }

  /** The push of a rotation's next item for one of its devices. */
  private pushOf(state: Rotation, deviceId: string, next: NextItem): NewPush {
    const { item, index } = next;
    return {
      userId: state.user_id,
      deviceId,
      title: state.name,
      template: PLUGIN_PUSH_TEMPLATE,
      params: {
        ...("mashup" in item
          ? { mashup: item.mashup.layout, pluginIds: item.mashup.pluginIds }
          : { pluginId: item.pluginId, view: "full" }),
        [PLAYLIST_PARAM]: state.playlist_id,
        itemIndex: index,
      },
      scheduled: true,
    };
  }

  /** The rotation waits until `until` (a hold, a sleep): no render now, an advance then. */
  private async wait(trx: Trx, deviceId: string, until: Date, now: Date) {
    await repo.updateRotation(trx, deviceId, { item_ends_at: until, updated_at: now });
    const seconds = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
    await this.jobs.send(playlistAdvanceQueue, { deviceId }, { trx, startAfterSeconds: seconds });
    return null;
  }

  /**
   * The owner's own push of a device (the `ownerPushed` hook): a running playlist holds for its
   * current item's duration from now, then goes on.
   */
  async ownerPushed(trx: Trx, deviceId: string): Promise<void> {
    const state = await repo.lockRotation(trx, deviceId);
    if (!state) return;
    const item = state.items[state.item_index];
    const seconds = item?.durationSeconds ?? DEFAULT_DURATION_SECONDS;
    const now = this.now();
    const until = new Date(now.getTime() + seconds * 1000);
    await repo.updateRotation(trx, deviceId, {
      hold_until: until,
      item_ends_at: until > state.item_ends_at ? until : state.item_ends_at,
      updated_at: now,
    });
    await this.jobs.send(playlistAdvanceQueue, { deviceId }, { trx, startAfterSeconds: seconds });
  }

  /**
   * Playlists' pushes rendered (the `pushRendered` hook: one, or many of one drawing): shown at
   * once, many together.
   */
  async rendered(
    pushes: { id: string; device_id: string; user_id: string; params: unknown }[],
  ): Promise<void> {
    const ours = pushes.filter((push) =>
      typeof ((push.params ?? {}) as Record<string, unknown>)[PLAYLIST_PARAM] === "string"
    );
    if (ours.length === 1) await this.deps.pushes.showNow(ours[0]);
    else if (ours.length > 1) await this.deps.pushes.showMany(ours);
  }

  /** A webhook plugin's data changed: the devices showing it draw their item again. */
  async pluginDataChanged(trx: Trx, pluginId: string): Promise<void> {
    await this.jobs.send(playlistAdvanceQueue, { pluginId }, { trx });
  }

  /** A plugin deleted: the items of the user's playlists showing it drop out. */
  async pluginDeleted(trx: Trx, userId: string, pluginId: string): Promise<void> {
    for (const playlist of await repo.lockPlaylistsUsing(trx, userId, pluginId)) {
      const items = playlist.items.filter((item) => !pluginsOf(item).includes(pluginId));
      if (items.length === playlist.items.length) continue;
      await repo.updatePlaylist(trx, playlist.id, {
        items: jsonb(items),
        updated_at: this.now(),
      });
      await this.jobs.send(playlistAdvanceQueue, { playlistId: playlist.id }, { trx });
    }
  }

  /**
   * The display poll's cap (the `displayRefreshCap` hook): seconds left in the device's current
   * item (or the owner's hold), or null without a playlist or an item shown. From the cache: no
   * query per poll.
   */
  async secondsLeft(deviceId: string): Promise<number | null> {
    const endsAt = await this.endings.get(
      deviceId,
      () => [tag.device(deviceId)],
      async () => {
        // No item shown (an empty schedule): nothing ends, the display keeps its own interval.
        const row = await repo.findAssignment(this.db, deviceId);
        return row && row.item_index >= 0 ? row.item_ends_at.getTime() : null;
      },
    );
    return endsAt === null ? null : Math.max(0, (endsAt - this.now().getTime()) / 1000);
  }
}
