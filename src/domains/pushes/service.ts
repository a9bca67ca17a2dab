/**
 * Pushes (SPEC 3.1, 4.5): creation in PREPARE with its render job, and the retrieval rules that
 * promote QUEUE pushes. Every promotion runs in a transaction holding the device row lock, so
 * concurrent `GET .../push` or `refresh` calls of one device (HTTP or MQTT) are serialized:
 * never two pushes published at once, never one skipped.
 */
import { type Log, silentLog } from "../../infra/lib/log.ts";
import type { Selectable } from "kysely";
import type { Db, Trx } from "../../schema.ts";
import { notFound } from "../../errors.ts";
import * as access from "../../infra/access/mod.ts";
import { isUuid, uuidv7 } from "../../infra/lib/ids.ts";
import type { Jobs } from "../../infra/jobs/types.ts";
import { renderPushQueue } from "./queues.ts";
import type { ObjectStore } from "../../infra/storage/object_store.ts";
import type { DeviceHead, DeviceRow, DevicesService } from "../devices/service.ts";
import { anchorOf, keysetPage } from "../../infra/lib/cursor.ts";
import * as repo from "./repository.ts";
import * as files from "../files/repository.ts";
import { confirmUpload as confirmFileUpload, issueUploadTicket } from "../files/uploads.ts";
import {
  type DitherKernel,
  type ImageFit,
  type ImageMode,
  RENDERABLE_NAMES,
  RENDERABLE_TYPES,
} from "../../infra/render/types.ts";
import { Batcher } from "../../infra/lib/batcher.ts";
import { tag } from "../../infra/db/cache/announced.ts";
import { ChangeFeed } from "../../infra/db/cache/feed.ts";
import type { TaggedCache } from "../../infra/db/cache/tagged_cache.ts";
import type { PushesTable, PushStatus } from "./tables.ts";
import { FORMAT_FILES, type PushFormat, toPushListItem } from "./views.ts";
import { type EventSink, NO_EVENTS } from "../webhooks/events.ts";

/** What an owner check of this kind answers (src/infra/access/mod.ts). */
export const PUSH = access.hidden("push", "Push not found");

/** A staged custom image (a `files` row) of the caller. */
export const UPLOAD = access.hidden("upload", "Upload not found");

type PushRow = Selectable<PushesTable>;

/** SPEC 8: signed read URLs live 15 minutes. */
export const URL_TTL_SECONDS = 15 * 60;
/** SPEC 8: push list page size. */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 50;

/** The template of custom-image pushes: the upload itself is the source (SPEC 4.6). */
export const CUSTOM_IMAGE_TEMPLATE = "custom-image";

/**
 * The template of a delivered Scene (CONTRACT.md "Displays people already own"): its params are
 * `{scene, mode, fileIds}`, drawn by the render job for the device's panel.
 */
export const SCENE_PUSH_TEMPLATE = "scene";

export interface NewPush {
  userId: string;
  deviceId: string;
  title?: string;
  summary?: string;
  priority?: number;
  template: string;
  params?: Record<string, unknown>;
  sourceKey?: string;
  /**
   * Made by a schedule (a playlist's item coming due), not by the owner: it holds nothing
   * (`ownerPushed` reactions are not told).
   */
  scheduled?: boolean;
}

/**
 * What follows the owner's own push of a device (a new push, or `current-push`), in its
 * transaction, before the push takes any lock of its own: a playlist holds its rotation.
 */
export type OwnerPushReaction = (trx: Trx, deviceId: string) => Promise<void>;

export interface PushUrl {
  url: string;
  pushId: string;
  status: PushStatus;
  changed: boolean;
  /** SHA-256 (hex) of the file `url` points to (issue 12); null when not recorded. */
  sha256: string | null;
}

/** The digest column of each format. */
const DIGESTS = { png: "png_sha256", raw2: "raw2_sha256", raw4: "raw4_sha256" } as const;

export interface HistoryInput {
  status?: PushStatus;
  from?: string;
  to?: string;
  cursor?: string;
  limit?: number;
}

/**
 * The push a display's poll shows: no store URL (the display downloads it through its own
 * signed `image_url`, displays/polls.ts), so none is signed for it.
 */
export interface DisplayPush {
  pushId: string;
  status: PushStatus;
  changed: boolean;
  /** SHA-256 (hex) of its PNG: the poll's `filename`. */
  sha256: string | null;
}

/** A rendered push as a display's poll shows it; null when it has no picture. */
function displayPush(push: PushRow, changed: boolean): DisplayPush | null {
  if (!push.render_prefix) return null;
  return { pushId: push.id, status: push.status, changed, sha256: push.png_sha256 };
}

/** The SHA-256 of a render's three files. */
export interface RenderDigests {
  png: string;
  raw2: string;
  raw4: string;
}

/** What `PushesService` is built from (one object, like every domain's service). */
export interface PushesDeps {
  db: Db;
  devices: DevicesService;
  store: ObjectStore;
  jobs: Jobs;
  log?: Log;
  /** Invalidation of the push cache; without it nothing is cached. */
  changes?: ChangeFeed;
  /** Webhook events (`push.*`), emitted in the transaction of the change. */
  events?: EventSink;
  /** Reactions to the owner's own push (the `ownerPushed` hook's answers, filled once built). */
  onOwnerPush?: readonly OwnerPushReaction[];
  /** A render is likely soon (an upload ticket): the render pool starts a worker if none runs. */
  prewarm?: () => void;
}

/** The row of a new push: PREPARE, waiting for its render. */
function newPushRow(input: NewPush) {
  return {
    id: uuidv7(),
    device_id: input.deviceId,
    user_id: input.userId,
    title: input.title ?? "",
    summary: input.summary ?? "",
    priority: input.priority ?? 0,
    status: "PREPARE" as const,
    template: input.template,
    params: input.params ?? {},
    source_key: input.sourceKey ?? null,
  };
}

/** Pushes one render job takes at most (its own and those `along`). */
const ALONG_AT_MOST = 200;

export class PushesService {
  private readonly db: Db;
  private readonly devices: DevicesService;
  private readonly store: ObjectStore;
  private readonly jobs: Jobs;
  private readonly events: EventSink;
  private readonly log: Log;
  private readonly onOwnerPush: readonly OwnerPushReaction[];
  private readonly prewarm: () => void;

  constructor(deps: PushesDeps) {
    this.db = deps.db;
    this.devices = deps.devices;
    this.store = deps.store;
    this.jobs = deps.jobs;
    this.events = deps.events ?? NO_EVENTS;
    this.log = deps.log ?? silentLog;
    this.onOwnerPush = deps.onOwnerPush ?? [];
    this.prewarm = deps.prewarm ?? (() => {});
    this.pushes = (deps.changes ?? ChangeFeed.disabled()).cache();
    this.waiting = (deps.changes ?? ChangeFeed.disabled()).cache();
  }

  /**
   * Push rows by id for the `GET .../push` fast path, dropped when the push changes or goes
   * (src/infra/db/cache/feed.ts); which push is latest comes from the device's cached head.
   */
  private readonly pushes: TaggedCache<PushRow | undefined>;
  /**
   * Whether a device has a push waiting, by device: dropped when one of its pushes arrives,
   * goes, or changes status or render failure (migrations/0980), so a display's unchanged poll
   * asks no query.
   */
  private readonly waiting: TaggedCache<boolean>;
  /** Push rows by id for the MQTT `get_push` fast path, read in batches (a fleet's burst). */
  private readonly pushRows = new Batcher(
    (ids: string[]) => repo.findPushes(this.db, ids),
    // Each `get_push` is its own socket read: gathered over the loop's turn (issue 40).
    { maxBatch: 500, concurrency: 2, gather: "turn" },
  );

  /**
   * SPEC 3.1: a new push starts in PREPARE and its render job is enqueued in the same
   * transaction, so there is never a push without a job or a job without a push. The job goes
   * behind the user's own waiting renders, not behind everyone's (fair shares).
   */
  async create(input: NewPush, trx?: Trx): Promise<PushRow> {
    const run = async (t: Trx) => {
      // Before the user's render lock: a playlist's advance takes its rotation's lock first.
      if (!input.scheduled) {
        for (const react of this.onOwnerPush) {
          await react(t, input.deviceId);
        }
      }
      // Fair shares (CONTRACT.md): the render job of a user's n-th waiting push takes priority -n,
      // so workers take one push of each user with any waiting before a second of anyone's.
      const waiting = await repo.lockRenderBacklog(t, input.userId);
      const push = await repo.insertPush(t, newPushRow(input));
      await this.jobs.send(renderPushQueue, { pushId: push.id }, { trx: t, priority: -waiting });
      return push;
    };
    return trx ? await run(trx) : await this.db.transaction().execute(run);
  }

  /**
   * `create` for many scheduled pushes of one user in the caller's transaction (a playlist's
   * devices advanced together, one drawing): one count of the user's backlog, one insert of the
   * pushes and one render job for them all (`along`), in the first one's place: one drawing
   * takes one place in the user's fair share, not one a device. Returns the pushes in order.
   */
  async createScheduled(inputs: NewPush[], trx: Trx): Promise<PushRow[]> {
    if (inputs.length === 0) return [];
    const userId = inputs[0].userId;
    if (inputs.some((input) => input.userId !== userId || !input.scheduled)) {
      throw new Error("createScheduled takes one user's scheduled pushes");
    }
    const waiting = await repo.lockRenderBacklog(trx, userId);
    const rows = inputs.map(newPushRow);
    const inserted = new Map((await repo.insertPushes(trx, rows)).map((p) => [p.id, p]));
    const pushes = rows.map((row) => inserted.get(row.id)!);
    for (let i = 0; i < pushes.length; i += ALONG_AT_MOST) {
      const [first, ...along] = pushes.slice(i, i + ALONG_AT_MOST).map((push) => push.id);
      await this.jobs.send(
        renderPushQueue,
        along.length ? { pushId: first, along } : { pushId: first },
        { trx, priority: -Math.min(waiting + i, repo.MAX_RENDER_BACKLOG) },
      );
    }
    return pushes;
  }

  /**
   * `POST .../custom-push/upload` (SPEC 4.5): an upload ticket for one image (the files domain's
   * ticket mechanism); 400 for a non-image type, 413 for a declared size over 10 MB.
   */
  async issueCustomUpload(
    userId: string,
    deviceId: string,
    input: { contentType: string; sizeBytes?: number },
  ) {
    const device = await this.devices.owned(userId, deviceId);
    const ticket = await issueUploadTicket(this.db, this.store, {
      userId,
      deviceId: device.id,
      purpose: "custom_push_source",
      scope: device.id,
      contentType: input.contentType,
      sizeBytes: input.sizeBytes,
    });
    // Its render comes after the upload: a render worker warms meanwhile.
    this.prewarm();
    return ticket;
  }

  /**
   * `POST .../custom-push/confirm`: verifies the uploaded object and creates the push in PREPARE
   * with its render job, in one transaction. 404 for a file that is not this device's upload by
   * the caller; 409 when it is not confirmable (already confirmed, not uploaded, not an image the
   * render pool decodes, over 10 MB). The push renders the confirmed copy, never the staging one.
   */
  async confirmCustomUpload(
    userId: string,
    deviceId: string,
    input: {
      fileId: string;
      title?: string;
      dither?: DitherKernel;
      mode?: ImageMode;
      fit?: ImageFit;
    },
  ): Promise<{ pushId: string }> {
    await this.devices.owned(userId, deviceId);
    const file = access.owned(UPLOAD, await files.findFile(this.db, input.fileId), userId);
    if (file.purpose !== "custom_push_source" || file.device_id !== deviceId) {
      throw access.missing(UPLOAD);
    }
    const push = await confirmFileUpload(
      this.db,
      this.store,
      file,
      { types: RENDERABLE_TYPES, typeNames: RENDERABLE_NAMES },
      (trx, confirmed) =>
        this.create({
          userId,
          deviceId,
          title: input.title ?? "",
          template: CUSTOM_IMAGE_TEMPLATE,
          params: {
            fileId: file.id,
            ...(input.dither ? { dither: input.dither } : {}),
            ...(input.mode ? { mode: input.mode } : {}),
            ...(input.fit ? { fit: input.fit } : {}),
          },
          sourceKey: confirmed.key,
        }, trx),
    );
    return { pushId: push.id };
  }

  /**
   * A custom push from bytes the service already holds (the MCP `push_image_url` tool, issue 24):
   * the same ticket, staging key and confirm as an upload, so the bytes pass the same sniffing,
   * structure check and 10 MB limit and the push renders the confirmed copy.
   */
  async customPushOfBytes(
    userId: string,
    deviceId: string,
    input: {
      bytes: Uint8Array;
      contentType: string;
      title?: string;
      dither?: DitherKernel;
      mode?: ImageMode;
      fit?: ImageFit;
    },
  ): Promise<{ pushId: string }> {
    const ticket = await this.issueCustomUpload(userId, deviceId, {
      contentType: input.contentType,
      sizeBytes: input.bytes.length,
    });
    const staged = access.owned(UPLOAD, await files.findFile(this.db, ticket.fileId), userId);
    await this.store.put(staged.object_key, input.bytes, input.contentType);
    return await this.confirmCustomUpload(userId, deviceId, {
      fileId: ticket.fileId,
      title: input.title,
      dither: input.dither,
      mode: input.mode,
      fit: input.fit,
    });
  }

  /** The signed URL object of a rendered push. */
  async urlOf(push: PushRow, format: PushFormat, changed: boolean): Promise<PushUrl> {
    if (!push.render_prefix) throw notFound("Push has no rendered file");
    const url = await this.store.signedGetUrl(
      push.render_prefix + FORMAT_FILES[format],
      URL_TTL_SECONDS,
    );
    return { url, pushId: push.id, status: push.status, changed, sha256: push[DIGESTS[format]] };
  }

  /** Rule 1 on a locked device: its latest push, or the best QUEUE push promoted. */
  private async latestOrPromote(trx: Trx, device: DeviceRow) {
    if (device.latest_push_id) {
      const latest = await repo.findPush(trx, device.latest_push_id);
      if (latest) return { push: latest, changed: false };
    }
    const next = await repo.nextQueued(trx, device.id);
    if (!next) return null;
    return { push: await this.publish(trx, device.id, next.id), changed: true };
  }

  /**
   * Rule 2 on a locked device: the next QUEUE push replaces the latest, which expires. `fresh`
   * (a display's poll, a provider's post: rotations the device did not ask for) takes only a push
   * never published: the one `current-push` sent back to the queue stays there, or the next poll
   * would undo the owner's choice (CONTRACT.md: `current-push` is shown at the next poll).
   */
  private async rotate(trx: Trx, device: DeviceRow, fresh = false) {
    const next = await repo.nextQueued(trx, device.id, fresh);
    if (!next) {
      const latest = device.latest_push_id
        ? await repo.findPush(trx, device.latest_push_id)
        : undefined;
      return latest ? { push: latest, changed: false } : null;
    }
    if (device.latest_push_id) {
      await repo.transition(trx, device.latest_push_id, ["PUBLISHED", "CONFIRMED"], {
        status: "EXPIRED",
      });
    }
    return { push: await this.publish(trx, device.id, next.id), changed: true };
  }

  /** QUEUE → PUBLISHED and latest of its device. */
  private async publish(trx: Trx, deviceId: string, pushId: string) {
    const now = new Date();
    const push = await repo.updatePush(trx, pushId, { status: "PUBLISHED", published_at: now });
    await this.devices.setLatestPush(trx, deviceId, pushId, now);
    await this.events.emit(trx, push.user_id, "push.published", {
      pushId,
      deviceId,
      status: "PUBLISHED",
    });
    return push;
  }

  /**
   * The render job's push (render_job.ts): a PREPARE push not failed for good, or undefined
   * (deleted by an unbind, already rendered, or failed for good: a job delivered again).
   */
  /** Of these pushes, those still to render (PREPARE, not failed for good), in order. */
  async stillRendering(pushIds: string[]): Promise<string[]> {
    if (pushIds.length === 0) return [];
    const waiting = new Set(await repo.preparing(this.db, pushIds));
    return pushIds.filter((id) => waiting.has(id));
  }

  async renderable(pushId: string): Promise<PushRow | undefined> {
    const push = await repo.findPush(this.db, pushId);
    return push?.status === "PREPARE" && !push.render_failed_at ? push : undefined;
  }

  /** A render of the device with these digests already stored (stored once per device). */
  identicalRender(deviceId: string, digests: RenderDigests) {
    return repo.findIdenticalRender(this.db, deviceId, digests);
  }

  /**
   * A render is stored under `prefix`: its file record (unless it reuses `fileId`, an identical
   * render's) and PREPARE → QUEUE, in one transaction. `done` is false when the push was no
   * longer PREPARE (deleted meanwhile, or another attempt finished first: `ownedBy` is then the
   * prefix it points at).
   */
  async completeRender(
    push: PushRow,
    render: { prefix: string; fileId?: string; digests: RenderDigests; pngBytes: number },
  ): Promise<{ done: boolean; ownedBy: string | null | undefined }> {
    return await this.db.transaction().execute(async (trx) => {
      const locked = await repo.lockPush(trx, push.id);
      if (locked?.status !== "PREPARE") return { done: false, ownedBy: locked?.render_prefix };
      const fileId = render.fileId ?? (await files.insertFile(trx, {
        id: uuidv7(),
        user_id: push.user_id,
        device_id: push.device_id,
        purpose: "push_render",
        object_key: render.prefix + FORMAT_FILES.png,
        content_type: "image/png",
        size_bytes: render.pngBytes,
        status: "confirmed",
        confirmed_at: new Date(),
      })).id;
      await repo.updatePush(trx, push.id, {
        status: "QUEUE",
        render_prefix: render.prefix,
        file_id: fileId,
        png_sha256: render.digests.png,
        raw2_sha256: render.digests.raw2,
        raw4_sha256: render.digests.raw4,
        rendered_at: new Date(),
        render_error: null,
        render_attempts: locked.render_attempts + 1,
      });
      // A device nobody polls (a provider's webhook) has it delivered by its transport.
      await this.devices.pushReady(trx, push.device_id, push.id);
      return { done: true, ownedBy: render.prefix };
    });
  }

  /**
   * Pushes of the user waiting for the same drawing as `push` (same template and params: a
   * playlist's item due on many devices), at most `limit`, oldest first.
   */
  alike(push: PushRow, limit: number): Promise<PushRow[]> {
    return repo.preparedAlike(this.db, push, limit);
  }

  /** `identicalRender` for many devices at once, by device. */
  identicalRenders(deviceIds: string[], digests: RenderDigests) {
    return repo.findIdenticalRenders(this.db, deviceIds, digests);
  }

  /**
   * `completeRender` for many pushes of one drawing (a playlist's item on many devices), each
   * with its own files (`prefix`; `fileId` an identical render's of its device): their file
   * records and PREPARE → QUEUE in one transaction and a few statements. Returns the pushes it
   * moved, and for the others (no longer PREPARE) the prefix each points at, if any.
   */
  async completeRenders(
    renders: { push: PushRow; prefix: string; fileId?: string }[],
    digests: RenderDigests,
    pngBytes: number,
  ): Promise<{ done: PushRow[]; ownedBy: Map<string, string | null> }> {
    if (renders.length === 0) return { done: [], ownedBy: new Map() };
    return await this.db.transaction().execute(async (trx) => {
      const locked = new Map(
        (await repo.lockPushes(trx, renders.map((r) => r.push.id))).map((p) => [p.id, p]),
      );
      const now = new Date();
      const done: PushRow[] = [];
      const ownedBy = new Map<string, string | null>();
      const rows: { id: string; prefix: string; fileId: string }[] = [];
      const records: Parameters<typeof files.insertFiles>[1] = [];
      for (const { push, prefix, fileId } of renders) {
        const current = locked.get(push.id);
        if (current?.status !== "PREPARE" || current.render_failed_at) {
          ownedBy.set(push.id, current?.render_prefix ?? null);
          continue;
        }
        const id = fileId ?? uuidv7();
        if (!fileId) {
          records.push({
            id,
            user_id: push.user_id,
            device_id: push.device_id,
            purpose: "push_render",
            object_key: prefix + FORMAT_FILES.png,
            content_type: "image/png",
            size_bytes: pngBytes,
            status: "confirmed",
            confirmed_at: now,
          });
        }
        rows.push({ id: push.id, prefix, fileId: id });
        done.push(push);
      }
      await files.insertFiles(trx, records);
      await repo.storeRenders(trx, rows, digests, now);
      // A device nobody polls (a provider's webhook) has it delivered by its transport.
      await this.devices.pushesReady(
        trx,
        done.map((p) => ({ deviceId: p.device_id, pushId: p.id })),
      );
      return { done, ownedBy };
    });
  }

  /**
   * A render attempt failed: its error is recorded on the push; `forGood` marks it failed for
   * good and emits `push.failed` with the failure it reports, in the same transaction.
   */
  async failRender(push: PushRow, message: string, forGood: boolean) {
    await this.db.transaction().execute(async (trx) => {
      const [recorded] = await repo.recordRenderFailure(trx, push.id, message, forGood);
      if (forGood && recorded && recorded.numUpdatedRows > 0n) {
        await this.events.emit(trx, push.user_id, "push.failed", {
          pushId: push.id,
          deviceId: push.device_id,
          status: push.status,
          error: message.slice(0, 500),
        });
      }
    });
  }

  /**
   * The bytes of the pictures a push names, by file id: the push owner's own confirmed files
   * only (anyone else's id is simply left out).
   */
  async ownPictures(userId: string, fileIds: string[]): Promise<Record<string, Uint8Array>> {
    const images: Record<string, Uint8Array> = {};
    for (const file of await files.confirmedUserFiles(this.db, userId, fileIds)) {
      const bytes = await this.store.get(file.object_key);
      if (bytes) images[file.id] = bytes;
    }
    return images;
  }

  /** A push row by id from the request path's cache (dropped when the row changes). */
  private cachedPush(id: string) {
    return this.pushes.get(
      id,
      (push) => push ? [tag.push(push.id)] : null,
      () => repo.findPush(this.db, id),
    );
  }

  /** `GET /api/devices/{id}/push` (rule 1). */
  async get(userId: string, deviceId: string, format: PushFormat): Promise<PushUrl> {
    // Fast path without a transaction: with a latest push, rule 1 changes nothing. A refresh
    // racing this read only means the caller was served just before it.
    const device = await this.devices.ownedHead(userId, deviceId);
    if (device.latest_push_id) {
      const latest = await this.cachedPush(device.latest_push_id);
      if (latest) return await this.urlOf(latest, format, false);
    }
    const result = await this.db.transaction().execute(async (trx) =>
      this.latestOrPromote(trx, await this.devices.lockOwned(trx, userId, deviceId))
    );
    if (!result) throw notFound("No push available");
    return await this.urlOf(result.push, format, result.changed);
  }

  /**
   * A display's button (issue 24): `previous` shows the push shown before the current one (by
   * creation), `next` the one after it, from the oldest again past the newest. The one left
   * EXPIRES (not QUEUE: the next poll would rotate back to it). True when the push changed.
   */
  async step(deviceId: string, direction: "previous" | "next"): Promise<boolean> {
    return await this.db.transaction().execute(async (trx) => {
      const device = await this.devices.lock(trx, deviceId);
      if (!device?.owner_id) return false;
      const current = device.latest_push_id
        ? await repo.findPush(trx, device.latest_push_id)
        : undefined;
      let target = await repo.shownNeighbour(
        trx,
        deviceId,
        current ?? null,
        direction === "previous" ? "older" : "newer",
      );
      if (!target && direction === "next") {
        target = await repo.shownNeighbour(trx, deviceId, null, "newer");
      }
      if (!target || target.id === current?.id) return false;
      if (current) {
        await repo.transition(trx, current.id, ["PUBLISHED", "CONFIRMED"], { status: "EXPIRED" });
      }
      await this.publish(trx, deviceId, target.id);
      return true;
    });
  }

  /** `POST /api/devices/{id}/push/refresh` (rule 2). */
  async refresh(userId: string, deviceId: string, format: PushFormat): Promise<PushUrl> {
    const result = await this.db.transaction().execute(async (trx) =>
      this.rotate(trx, await this.devices.lockOwned(trx, userId, deviceId))
    );
    if (!result) throw notFound("No push available");
    return await this.urlOf(result.push, format, result.changed);
  }

  /**
   * Whether another push of the device waits (queued or still rendering): a display then polls
   * again soon (CONTRACT.md: `refresh_rate` about 60 s while a push waits).
   */
  hasWaiting(deviceId: string): Promise<boolean> {
    return this.waiting.get(
      deviceId,
      () => [tag.device(deviceId)],
      () => repo.hasWaiting(this.db, deviceId, true),
    );
  }

  /**
   * A display's poll (CONTRACT.md "Displays people already own"), for a device the display has
   * already proven with its key (`head`, the cached owner and latest push): one walk, no owner
   * check again. A waiting push is rotated in (rule 2, `push/refresh`), otherwise the latest is
   * served from the cache (rule 1: with nothing waiting there is nothing to promote). `waiting`
   * says whether another push still waits after it; `push` is null when there is none to show.
   */
  async forDisplay(head: DeviceHead): Promise<{ push: DisplayPush | null; waiting: boolean }> {
    if (await this.hasWaiting(head.id)) {
      const result = await this.db.transaction().execute(async (trx) => {
        const device = await this.devices.lock(trx, head.id);
        // Unbound or moved since the display authenticated: nothing is shown for it.
        if (!device?.owner_id || device.owner_id !== head.owner_id) return null;
        const rotated = await this.rotate(trx, device, true);
        return { rotated, waiting: await repo.hasWaiting(trx, head.id, true) };
      });
      if (!result) return { push: null, waiting: false };
      const { rotated, waiting } = result;
      return { push: rotated && displayPush(rotated.push, rotated.changed), waiting };
    }
    const latest = head.latest_push_id ? await this.cachedPush(head.latest_push_id) : undefined;
    return { push: latest ? displayPush(latest, false) : null, waiting: false };
  }

  /**
   * A device behind a provider's webhook, which never asks: every waiting push is published in
   * turn (rule 2; each the latest for a moment, so history and webhooks see it), and the last is
   * what the provider is sent. Returns that push, or undefined with nothing rendered to show.
   * Bounded: one transaction, at most `MAX_LIMIT` (50) rotations.
   */
  async publishWaiting(deviceId: string): Promise<PushRow | undefined> {
    return await this.db.transaction().execute(async (trx) => {
      let device = await this.devices.lock(trx, deviceId);
      if (!device?.owner_id) return undefined;
      let shown: PushRow | undefined;
      for (let turn = 0; turn < MAX_LIMIT; turn++) {
        const result = await this.rotate(trx, device, true);
        shown = result?.push;
        if (!result?.changed) break;
        device = { ...device, latest_push_id: result.push.id };
      }
      return shown?.render_prefix ? shown : undefined;
    });
  }

  /** `GET /api/devices/{id}/push/{pushId}` (rule 3): changes no push state. */
  async getById(userId: string, deviceId: string, pushId: string, format: PushFormat) {
    await this.devices.owned(userId, deviceId);
    const push = await repo.findDevicePush(this.db, deviceId, pushId);
    if (!push || !push.render_prefix) throw access.missing(PUSH);
    return await this.urlOf(push, format, false);
  }

  /**
   * One push of the caller's device as the history lists it, in any state (the MCP `get_push`
   * tool, issue 24): 403/404 for the device like every device endpoint, 404 for the push.
   */
  async state(userId: string, deviceId: string, pushId: string) {
    await this.devices.owned(userId, deviceId);
    const push = await repo.findDevicePush(this.db, deviceId, pushId);
    if (!push) throw access.missing(PUSH);
    return toPushListItem(push);
  }

  /**
   * `POST /api/devices/{id}/current-push`: a rendered push of the device becomes PUBLISHED and
   * latest, the previous latest returns to QUEUE, and the device gets `new_push`.
   */
  async setCurrent(userId: string, deviceId: string, pushId: string) {
    await this.db.transaction().execute(async (trx) => {
      const device = await this.devices.lockOwned(trx, userId, deviceId);
      const target = await repo.findDevicePush(trx, deviceId, pushId);
      if (!target || target.status === "PREPARE" || !target.render_prefix) {
        throw access.missing(PUSH, "Push not found or not rendered");
      }
      for (const react of this.onOwnerPush) await react(trx, deviceId);
      if (device.latest_push_id !== pushId) {
        if (device.latest_push_id) {
          await repo.transition(trx, device.latest_push_id, ["PUBLISHED", "CONFIRMED"], {
            status: "QUEUE",
          });
        }
        await this.publish(trx, deviceId, pushId);
      }
      // Outbox: the signal goes out once this commits, retried while the broker is away (also
      // when the push already was current: the caller asked the device to show it).
      await this.devices.notify(trx, device, { kind: "new_push", pushId });
    });
    return { message: "Current push set" };
  }

  /**
   * A scheduled push just rendered (a playlist's item) is shown at once: it becomes PUBLISHED and
   * latest (the one shown before EXPIRES), and a device on MQTT gets `new_push`; a display gets
   * it at its next poll. Nothing happens to a push no longer QUEUE or a device that left.
   */
  async showNow(push: { id: string; device_id: string; user_id: string }): Promise<boolean> {
    const pushId = push.id;
    return await this.db.transaction().execute(async (trx) => {
      const device = await this.devices.lock(trx, push.device_id);
      if (!device?.owner_id || device.owner_id !== push.user_id) return false;
      const locked = await repo.lockPush(trx, pushId);
      if (locked?.status !== "QUEUE") return false;
      if (device.latest_push_id) {
        await repo.transition(trx, device.latest_push_id, ["PUBLISHED", "CONFIRMED"], {
          status: "EXPIRED",
        });
      }
      await this.publish(trx, device.id, pushId);
      // Its transport says how the device hears of it (MQTT `new_push`, a provider's post; a
      // display that polls, nothing: it gets it at its next poll).
      await this.devices.notify(trx, device, { kind: "new_push", pushId });
      return true;
    });
  }

  /**
   * `showNow` for many scheduled pushes just rendered, at most one a device (a playlist's item
   * drawn once for many displays): one transaction holding their devices' locks (in id order)
   * and a few statements whatever their number; each still gets its `push.published` and its
   * device's `new_push`. Returns how many were shown.
   */
  async showMany(list: { id: string; device_id: string; user_id: string }[]): Promise<number> {
    if (list.length === 0) return 0;
    return await this.db.transaction().execute(async (trx) => {
      const devices = await this.devices.lockMany(trx, [...new Set(list.map((p) => p.device_id))]);
      const locked = new Map(
        (await repo.lockPushes(trx, list.map((p) => p.id))).map((p) => [p.id, p]),
      );
      const seen = new Set<string>();
      const shown = list.filter((p) => {
        const device = devices.get(p.device_id);
        if (seen.has(p.device_id) || !device?.owner_id || device.owner_id !== p.user_id) {
          return false;
        }
        if (locked.get(p.id)?.status !== "QUEUE") return false;
        seen.add(p.device_id);
        return true;
      });
      if (shown.length === 0) return 0;
      const ids = new Set(shown.map((p) => p.id));
      const previous = shown.flatMap((p) => {
        const latest = devices.get(p.device_id)!.latest_push_id;
        return latest && !ids.has(latest) ? [latest] : [];
      });
      await repo.transitionMany(trx, previous, ["PUBLISHED", "CONFIRMED"], { status: "EXPIRED" });
      const now = new Date();
      await repo.transitionMany(trx, [...ids], ["QUEUE"], {
        status: "PUBLISHED",
        published_at: now,
      });
      await this.devices.setLatestPushes(
        trx,
        shown.map((p) => ({ deviceId: p.device_id, pushId: p.id })),
        now,
      );
      const events = shown.map((p) => ({
        userId: p.user_id,
        data: { pushId: p.id, deviceId: p.device_id, status: "PUBLISHED" },
      }));
      await emitAll(this.events, trx, "push.published", events);
      for (const p of shown) {
        await this.devices.notify(trx, devices.get(p.device_id)!, {
          kind: "new_push",
          pushId: p.id,
        });
      }
      return shown.length;
    });
  }

  /**
   * Keeps devices' histories bounded: their pushes whose params carry `paramKey` (a playlist's)
   * beyond the newest `keep` of each are deleted, with their file records and stored bitmaps
   * unless a push left still points at them (an identical render is stored once per device). A
   * playlist's devices advanced together are trimmed together: a few statements for all.
   */
  async trimScheduled(deviceIds: string[], paramKey: string, keep: number): Promise<number> {
    // Most calls find nothing beyond `keep`: known without a transaction or the devices' locks
    // (a push added meanwhile is trimmed by the next call).
    const over = await repo.withScheduledBeyond(this.db, deviceIds, paramKey, keep);
    if (over.length === 0) return 0;
    const gone = await this.db.transaction().execute(async (trx) => {
      const devices = [...(await this.devices.lockMany(trx, over)).values()];
      if (devices.length === 0) return [];
      const old = await repo.scheduledBeyond(trx, devices, paramKey, keep);
      if (old.length === 0) return [];
      await repo.deletePushes(trx, old.map((p) => p.id));
      const prefixes = [...new Set(old.map((p) => p.render_prefix).filter((p) => p !== null))];
      const kept = await repo.prefixesInUse(trx, devices.map((d) => d.id), prefixes);
      const unused = old.filter((p) => p.render_prefix !== null && !kept.has(p.render_prefix));
      await files.deleteFilesById(trx, unused.flatMap((p) => p.file_id ? [p.file_id] : []));
      return [...new Set(unused.map((p) => p.render_prefix!))];
    });
    for (const prefix of gone) await this.store.deletePrefix(prefix);
    return gone.length;
  }

  /** `GET /api/devices/{id}/pushes`: newest first, keyset cursor on (createdAt, id). */
  async list(userId: string, deviceId: string, input: HistoryInput) {
    await this.devices.owned(userId, deviceId);
    const after = anchorOf(input.cursor);
    const limit = Math.min(input.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
    const rows = await repo.listHistory(this.db, deviceId, {
      status: input.status,
      from: input.from ? new Date(input.from) : undefined,
      to: input.to ? new Date(input.to) : undefined,
      after,
      limit,
    });
    return await keysetPage(rows, limit, (page) => page.map(toPushListItem));
  }

  /**
   * MQTT `up/get_push` / `up/refresh_push`: the same rules for the device itself. Null when it
   * has no push (or no owner), undefined when this deployment does not know the thing at all.
   */
  async forThing(thingName: string, mode: "get" | "refresh", format: PushFormat) {
    const known = await this.devices.byThing(thingName);
    // Not a device of this deployment (an external broker may carry others'): no answer at all.
    if (!known) return undefined;
    if (!known.owner_id) return null;
    // The fast path of `get` (no transaction): with a latest push, rule 1 changes nothing.
    if (mode === "get" && known.latest_push_id) {
      const latest = await this.pushRows.load(known.latest_push_id);
      if (latest) return await this.urlOf(latest, format, false);
    }
    const result = await this.db.transaction().execute(async (trx) => {
      const device = await this.devices.lock(trx, known.id);
      if (!device?.owner_id) return null;
      return mode === "get"
        ? await this.latestOrPromote(trx, device)
        : await this.rotate(trx, device);
    });
    return result ? await this.urlOf(result.push, format, result.changed) : null;
  }

  /**
   * The PNG of a push a display downloads through its signed `image_url` (CONTRACT.md: the
   * download is recorded as the display fetching that push; the first one is kept). Null when
   * the push is gone or has no picture.
   */
  async fetchPicture(pushId: string): Promise<Uint8Array | null> {
    const push = await this.cachedPush(pushId);
    if (!push?.render_prefix) return null;
    const bytes = await this.store.get(push.render_prefix + FORMAT_FILES.png);
    if (!bytes) return null;
    // The cached row says whether it was fetched: a write only the first time (the update
    // drops the cached row).
    if (push.fetched_at === null || push.fetched_at === undefined) {
      await repo.markFetched(this.db, pushId, new Date());
    }
    return bytes;
  }

  /** MQTT `up/confirm`: the device displayed a PUBLISHED push of its own. */
  async confirmDisplayed(thingName: string, pushId: unknown) {
    if (typeof pushId !== "string" || !isUuid(pushId)) return false;
    const device = await this.devices.byThing(thingName);
    if (!device) return false;
    return await this.confirmShown(device.id, pushId);
  }

  /**
   * A device (an MQTT device's `up/confirm`, a display back with the push it was given) shows a
   * PUBLISHED push of its own: it becomes CONFIRMED, once.
   */
  async confirmShown(deviceId: string, pushId: string) {
    const push = await repo.findDevicePush(this.db, deviceId, pushId);
    if (!push) return false;
    return await this.db.transaction().execute(async (trx) => {
      const moved = await repo.transition(trx, pushId, ["PUBLISHED"], {
        status: "CONFIRMED",
        confirmed_at: new Date(),
      });
      if (!moved) return false;
      await this.events.emit(trx, push.user_id, "push.confirmed", {
        pushId,
        deviceId,
        status: "CONFIRMED",
      });
      return true;
    });
  }
}

/** Events of one type for many changes: through `emitMany` when the sink has it. */
async function emitAll(
  sink: EventSink,
  trx: Trx,
  type: "push.published",
  events: { userId: string; data: Record<string, unknown> }[],
) {
  const byUser = new Map<string, Record<string, unknown>[]>();
  for (const { userId, data } of events) byUser.set(userId, [...byUser.get(userId) ?? [], data]);
  for (const [userId, datas] of byUser) {
    if (sink.emitMany) await sink.emitMany(trx, userId, type, datas);
    else for (const data of datas) await sink.emit(trx, userId, type, data);
  }
}
