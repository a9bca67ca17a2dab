/**
 * The render job of a push (SPEC 4.6 render stage): the uploaded image (custom pushes) or the
 * template and its variables (the analyze agent's pushes) → renderer → output checks →
 * three files under `render/{userId}/{deviceId}/{pushId}/` → file record and PREPARE → QUEUE in
 * one transaction. A render identical to one the device already has (same three SHA-256
 * digests) is not stored again: the push points at those files (issue 12). A failure records the
 * error on the push (still PREPARE) and removes whatever was written, so a push never points at a
 * half-written set of files. A refused input fails the push for good at once, a transient failure
 * on its last retry: it is marked failed (`render_failed_at`, its `error` in the push history) and
 * never rendered again, even if its job is delivered again (issue 25).
 */
import { type Log, silentLog } from "../../infra/lib/log.ts";
import type { Selectable } from "kysely";
import { checkPushBitmaps } from "../../infra/render/checks.ts";
import { RenderRejected } from "../../infra/render/errors.ts";
import type { Attempt } from "../../infra/jobs/types.ts";
import {
  DITHER_KERNELS,
  type DitherKernel,
  IMAGE_FITS,
  IMAGE_MODES,
  type ImageFit,
  type ImageMode,
  type PanelSpec,
  type PushBitmaps,
  type Renderer,
  type TemplateRenderRequest,
  uprightSize,
} from "../../infra/render/types.ts";
import { templateRegistry } from "../../infra/render/templates/registry.ts";
import { renderPrefix } from "./keys.ts";
import type { ObjectStore } from "../../infra/storage/object_store.ts";
import {
  CUSTOM_IMAGE_TEMPLATE,
  type PushesService,
  type RenderDigests,
  SCENE_PUSH_TEMPLATE,
} from "./service.ts";
import type { PushesTable } from "./tables.ts";
import { FORMAT_FILES } from "./views.ts";

type PushRow = Selectable<PushesTable>;

/** A failure that retrying cannot fix: recorded, not retried. */
class PermanentRenderFailure extends Error {}

/**
 * Digests by the bytes they are of: one drawing shared by many pushes (a playlist's item on many
 * displays, plugins/drawing.ts) is hashed once, not once per device.
 */
const digestsOf = new WeakMap<Uint8Array, Promise<string>>();

function sha256Hex(bytes: Uint8Array): Promise<string> {
  let digest = digestsOf.get(bytes);
  if (!digest) {
    digest = crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)
      .then((d) => new Uint8Array(d).toHex());
    digestsOf.set(bytes, digest);
  }
  return digest;
}

/** The dither a custom push asked for (stored in its params), if it is one we know. */
function ditherOf(push: PushRow): DitherKernel | undefined {
  const dither = (push.params as { dither?: unknown } | null)?.dither;
  return DITHER_KERNELS.find((kernel) => kernel === dither);
}

/** Whether a custom push said it is a document or a photo (its params), if it did. */
function modeOf(push: PushRow): ImageMode | undefined {
  const mode = (push.params as { mode?: unknown } | null)?.mode;
  return IMAGE_MODES.find((known) => known === mode);
}

/** How a custom push asked its picture to fill the frame (its params), if it did. */
function fitOf(push: PushRow): ImageFit | undefined {
  const fit = (push.params as { fit?: unknown } | null)?.fit;
  return IMAGE_FITS.find((known) => known === fit);
}

/** Why a panel's PNG is not the size and grey depth it was drawn for, or null. */
function checkPanelPng(png: Uint8Array, panel: PanelSpec): string | null {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  if (png.length < 33 || String.fromCharCode(...png.subarray(12, 16)) !== "IHDR") {
    return "not a PNG";
  }
  const [width, height, depth, colour] = [
    view.getUint32(16),
    view.getUint32(20),
    png[24],
    png[25],
  ];
  if (width !== panel.width || height !== panel.height) return `PNG is ${width}x${height}`;
  if (depth !== panel.bitDepth || colour !== 0) return `PNG is not ${panel.bitDepth}-bit grey`;
  return null;
}

/**
 * A template another domain draws (a plugin's push): its bitmaps for the device's panel, or the
 * 800x480 push formats for a device without one.
 */
export interface PushDrawing {
  template: string;
  draw(push: PushRow, panel: PanelSpec | null): Promise<PushBitmaps>;
  /**
   * Pushes of one user with the same params draw the same picture for the same panel (a
   * playlist's item due on many displays): one drawing is stored for all of them that wait.
   */
  alike?: boolean;
}

/**
 * What follows renders stored (PREPARE → QUEUE), one push or many of one drawing: a playlist's
 * pushes are shown at once.
 */
export type RenderedReaction = (pushes: PushRow[]) => Promise<void>;

/** Pushes one drawing completes beside its own push (the rest wait for their own jobs). */
const ALIKE_BATCH = 200;
/** Devices' files written at once for such a group. */
const WRITES_AT_ONCE = 8;

/** A push's drawing as stored: for its panel, its bitmaps and their digests, under `prefix`. */
interface Drawn {
  panel: PanelSpec | null;
  bitmaps: PushBitmaps;
  digests: RenderDigests;
  prefix: string;
}

/** Whether two panels are drawn alike. */
function samePanel(a: PanelSpec | null, b: PanelSpec | null): boolean {
  if (!a || !b) return a === b;
  return a.width === b.width && a.height === b.height && a.bitDepth === b.bitDepth &&
    (a.rotation ?? 0) === (b.rotation ?? 0);
}

/** What follows when a push's render failed for good (no retry follows). */
export type RenderFailedReaction = (push: PushRow, message: string) => Promise<void>;

export interface PushRenderJobOptions {
  /** Reactions to a render that failed for good (a display presentation fails with it). */
  onFailedForGood?: readonly RenderFailedReaction[];
  log?: Log;
  /** Where sources are read and bitmaps written (the service's object store). */
  store: ObjectStore;
  /**
   * The panel of a device that is a display (its size and grey depth), null for any other
   * device: a custom image for a display is drawn for its panel (CONTRACT.md).
   */
  panelOf?: (deviceId: string) => Promise<PanelSpec | null>;
  /** `panelOf` of many devices at once: the panels of those that have one, by device. */
  panelsOf?: (deviceIds: string[]) => Promise<Map<string, PanelSpec>>;
  /** Templates other domains draw (the `pushDrawing` hook's answers). */
  drawings?: readonly PushDrawing[];
  /** Reactions to a render stored (the `pushRendered` hook's answers). */
  onRendered?: readonly RenderedReaction[];
}

export class PushRenderJob {
  private readonly log: Log;
  private readonly store: ObjectStore;
  private readonly onFailedForGood: readonly RenderFailedReaction[];
  private readonly panelOf: (deviceId: string) => Promise<PanelSpec | null>;
  private readonly panelsOf: (deviceIds: string[]) => Promise<Map<string, PanelSpec>>;
  /** Filled once every service is built (src/face.ts `hooks`): read at render time. */
  private readonly drawings: readonly PushDrawing[];
  private readonly onRendered: readonly RenderedReaction[];
  /** Pushes whose own job runs in this process now. */
  private readonly running = new Set<string>();
  /**
   * Pushes this process is completing with another push's drawing, until that is stored: their
   * own jobs wait for it instead of storing the drawing a second time (two workers taking a
   * playlist group's first two jobs at once copied every device's files twice).
   */
  private readonly completing = new Map<string, Promise<unknown>>();

  constructor(
    private readonly pushes: PushesService,
    private readonly renderer: Renderer,
    options: PushRenderJobOptions,
  ) {
    this.log = options.log ?? silentLog;
    this.store = options.store;
    this.onFailedForGood = options.onFailedForGood ?? [];
    this.panelOf = options.panelOf ?? (() => Promise.resolve(null));
    this.panelsOf = options.panelsOf ?? (async (deviceIds) => {
      const found = new Map<string, PanelSpec>();
      for (const id of deviceIds) {
        const panel = await this.panelOf(id);
        if (panel) found.set(id, panel);
      }
      return found;
    });
    this.drawings = options.drawings ?? [];
    this.onRendered = options.onRendered ?? [];
  }

  /** The handler of `renderPushQueue`; a throw tells the queue to retry with backoff. */
  async handle(job: { pushId: string; along?: string[] }, attempt?: Attempt): Promise<void> {
    // A failure ends an attempt that has a retry after it (the pushes along are retried with the
    // job); the final attempt tries every push before it fails, so each records its own failure.
    let failure: { error: unknown } | undefined;
    const run = async (pushId: string) => {
      try {
        await this.handleOne(pushId, attempt);
      } catch (error) {
        if (!attempt?.final) throw error;
        failure ??= { error };
      }
    };
    await run(job.pushId);
    // Those drawn alike were stored with it, or are being stored by another job here (waited
    // for, not asked about one by one): the rest (another panel, or the first failed) next.
    const along = job.along ?? [];
    await Promise.all(along.flatMap((id) => this.completing.get(id) ?? []));
    for (const pushId of await this.pushes.stillRendering(along)) await run(pushId);
    if (failure) throw failure.error;
  }

  private async handleOne(pushId: string, attempt?: Attempt): Promise<void> {
    // Not awaited unless there is something to wait for: no turn between this and `running`.
    const completing = this.completing.get(pushId);
    if (completing) await completing;
    this.running.add(pushId);
    try {
      await this.renderOwn(pushId, attempt);
    } finally {
      this.running.delete(pushId);
    }
  }

  private async renderOwn(pushId: string, attempt?: Attempt): Promise<void> {
    const push = await this.pushes.renderable(pushId);
    if (!push) return;
    const own = renderPrefix(push.user_id, push.device_id, push.id);
    let wrote = false;
    let drawn: Drawn | undefined;
    try {
      const panel = await this.panelOf(push.device_id);
      const bitmaps = await this.render(push, panel ?? undefined);
      // Issue 12: a render that fails its output checks is a failure, recorded, never served.
      // A panel's render has its own size and depth: its PNG is checked to be one.
      const problem = panel ? checkPanelPng(bitmaps.png, panel) : checkPushBitmaps(bitmaps);
      if (problem) throw new PermanentRenderFailure(`Render failed its output checks: ${problem}`);
      const digests = {
        png: await sha256Hex(bitmaps.png),
        raw2: await sha256Hex(bitmaps.raw2),
        raw4: await sha256Hex(bitmaps.raw4),
      };
      // Identical renders of one device are stored once: this push points at those files.
      const same = await this.pushes.identicalRender(push.device_id, digests);
      if (!same) {
        wrote = true;
        await this.writeFiles(own, bitmaps);
      }
      const outcome = await this.pushes.completeRender(push, {
        prefix: same?.render_prefix ?? own,
        fileId: same?.file_id ?? undefined,
        digests,
        pngBytes: bitmaps.png.byteLength,
      });
      // Deleted meanwhile (unbind): drop what this attempt wrote, unless another attempt of the
      // same push finished first with the same files.
      if (!outcome.done && wrote && outcome.ownedBy !== own) await this.store.deletePrefix(own);
      if (outcome.done) await this.rendered([push]);
      drawn = { panel, bitmaps, digests, prefix: same?.render_prefix ?? own };
    } catch (error) {
      // Nothing references a push's own prefix before it is QUEUE, so this removes only this
      // attempt's files (a deduplicated push wrote none).
      if (wrote) await this.store.deletePrefix(own).catch(() => {});
      await this.failed(push, error, attempt);
    }
    if (drawn && this.drawings.some((d) => d.template === push.template && d.alike)) {
      // Theirs to fail: those left PREPARE are drawn by their own jobs.
      await this.completeAlike(push, drawn).catch((cause) =>
        this.log.error("shared render failed", { pushId: push.id, error: String(cause) })
      );
    }
  }

  /**
   * The pushes waiting for the drawing just stored (same user, template and params, same panel;
   * one a device): each gets its device's files (an identical render's, or the leader's copied
   * under its own prefix) and all move to QUEUE together, then their reactions run once for all. Their
   * own jobs later find them rendered. This is what keeps a playlist on a thousand displays
   * from being a thousand render jobs' worth of statements when its item comes due.
   */
  private async completeAlike(
    leader: PushRow,
    drawn: Drawn,
  ) {
    const devices = new Set([leader.device_id]);
    const candidates: PushRow[] = [];
    for (const push of await this.pushes.alike(leader, ALIKE_BATCH)) {
      if (devices.has(push.device_id)) continue;
      devices.add(push.device_id);
      // Another job of this process has it: its own, or a drawing it stores for many.
      if (this.running.has(push.id) || this.completing.has(push.id)) continue;
      candidates.push(push);
    }
    if (candidates.length === 0) return;
    const stored = Promise.withResolvers<void>();
    for (const push of candidates) this.completing.set(push.id, stored.promise);
    try {
      await this.storeAlike(candidates, drawn);
    } finally {
      for (const push of candidates) this.completing.delete(push.id);
      stored.resolve();
    }
  }

  /** `completeAlike`'s candidates of the leader's panel get its drawing, stored and shown. */
  private async storeAlike(
    candidates: PushRow[],
    drawn: Drawn,
  ) {
    const panels = await this.panelsOf(candidates.map((p) => p.device_id));
    const group = candidates.filter((p) => samePanel(panels.get(p.device_id) ?? null, drawn.panel));
    if (group.length === 0) return;
    const same = await this.pushes.identicalRenders(group.map((p) => p.device_id), drawn.digests);
    const written: { push: PushRow; prefix: string }[] = [];
    const renders = group.map((push) => {
      const found = same.get(push.device_id);
      if (found) return { push, prefix: found.render_prefix, fileId: found.file_id ?? undefined };
      const prefix = renderPrefix(push.user_id, push.device_id, push.id);
      written.push({ push, prefix });
      return { push, prefix };
    });
    try {
      for (let i = 0; i < written.length; i += WRITES_AT_ONCE) {
        await Promise.all(
          written.slice(i, i + WRITES_AT_ONCE).map((w) => this.copyFiles(drawn.prefix, w.prefix)),
        );
      }
    } catch (error) {
      for (const w of written) await this.store.deletePrefix(w.prefix).catch(() => {});
      throw error;
    }
    const { done, ownedBy } = await this.pushes.completeRenders(
      renders,
      drawn.digests,
      drawn.bitmaps.png.byteLength,
    );
    // Not ours to complete (deleted, or its own job finished first with the same files).
    for (const w of written) {
      if (ownedBy.has(w.push.id) && ownedBy.get(w.push.id) !== w.prefix) {
        await this.store.deletePrefix(w.prefix).catch(() => {});
      }
    }
    if (done.length > 0) await this.rendered(done);
  }

  /** The reactions to stored renders; theirs to log, the renders stand. */
  private async rendered(pushes: PushRow[]) {
    for (const react of this.onRendered) {
      await react(pushes).catch((cause) =>
        this.log.error("render reaction failed", {
          pushId: pushes[0]?.id,
          pushes: pushes.length,
          error: String(cause),
        })
      );
    }
  }

  /**
   * The leader's three files under another push's prefix: the store's copy (a hard link on
   * disk, a server-side copy on S3), as each device keeps files of its own (its trim and unbind
   * delete them) without the bytes being written a thousand times.
   */
  private async copyFiles(from: string, to: string) {
    for (const file of Object.values(FORMAT_FILES)) await this.store.copy(from + file, to + file);
  }

  /** The three files of a render under its push's own prefix. */
  private async writeFiles(prefix: string, bitmaps: PushBitmaps) {
    await this.store.put(prefix + FORMAT_FILES.png, bitmaps.png, "image/png");
    await this.store.put(prefix + FORMAT_FILES.raw2, bitmaps.raw2, "application/octet-stream");
    await this.store.put(prefix + FORMAT_FILES.raw4, bitmaps.raw4, "application/octet-stream");
  }

  /**
   * A failed attempt: recorded on the push; a refused input (corrupt, oversized, unknown
   * template) fails it for good at once, a transient failure on its last retry; otherwise the
   * error is thrown again for the queue to retry.
   */
  private async failed(push: PushRow, error: unknown, attempt?: Attempt) {
    const message = error instanceof Error ? error.message : String(error);
    const permanent = error instanceof PermanentRenderFailure || error instanceof RenderRejected;
    const forGood = permanent || (attempt?.final ?? false);
    await this.pushes.failRender(push, message, forGood);
    this.log.info("render failed", {
      pushId: push.id,
      error: message,
      attempt: attempt?.number,
      final: attempt?.final,
      forGood,
    });
    if (forGood) {
      for (const react of this.onFailedForGood) {
        await react(push, message).catch((cause) =>
          this.log.error("render failure reaction failed", {
            pushId: push.id,
            error: String(cause),
          })
        );
      }
    }
    if (!permanent) throw error;
  }

  private async render(push: PushRow, panel?: PanelSpec): Promise<PushBitmaps> {
    if (push.template === SCENE_PUSH_TEMPLATE) return await this.renderScene(push, panel);
    const drawing = this.drawings.find((d) => d.template === push.template);
    if (drawing) return await drawing.draw(push, panel ?? null);
    if (push.template !== CUSTOM_IMAGE_TEMPLATE) {
      return await this.renderer.renderTemplate({ ...await this.templateRequest(push), panel });
    }
    const bytes = push.source_key ? await this.store.get(push.source_key) : null;
    if (!bytes) throw new PermanentRenderFailure("Uploaded source image is missing");
    return await this.renderer.renderImage(bytes, {
      dither: ditherOf(push),
      mode: modeOf(push),
      fit: fitOf(push),
      panel,
    });
  }

  /**
   * A delivered Scene: drawn in grey at the panel's size (800x480 for an MQTT device), then
   * toned, dithered and packed like an uploaded picture for that panel. Its pictures are the
   * push owner's own confirmed files only.
   */
  private async renderScene(push: PushRow, panel?: PanelSpec): Promise<PushBitmaps> {
    const params = (push.params ?? {}) as { scene?: unknown; mode?: unknown; fileIds?: unknown };
    const fileIds = Array.isArray(params.fileIds)
      ? params.fileIds.filter((id): id is string => typeof id === "string").slice(0, 16)
      : [];
    const images = await this.pushes.ownPictures(push.user_id, fileIds);
    const grey = await this.renderer.renderScene({
      scene: params.scene,
      images,
      ...(panel ? uprightSize(panel) : { width: 800, height: 480 }),
      colorMode: "grayscale",
      mode: params.mode === "hardcode" ? "hardcode" : "auto",
    });
    return await this.renderer.renderImage(grey, { panel });
  }

  /**
   * A template push (the analyze agent's): its variables, and the bytes of the pictures they
   * name, loaded from the push owner's own confirmed files only (a file id of anyone else's is
   * simply not passed, and the renderer refuses the variable).
   */
  private async templateRequest(push: PushRow): Promise<TemplateRenderRequest> {
    const template = templateRegistry().get(push.template);
    if (!template) throw new PermanentRenderFailure(`Template ${push.template} not found`);
    const variables = (push.params ?? {}) as Record<string, unknown>;
    const fileIds = template.imageVariables.map((name) => variables[name])
      .filter((id): id is string => typeof id === "string");
    const images = await this.pushes.ownPictures(push.user_id, fileIds);
    return { name: push.template, variables, images, now: push.created_at.toISOString() };
  }
}
