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
import { uuidv7 } from "../../infra/lib/ids.ts";
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
import * as files from "../files/repository.ts";
import * as repo from "./repository.ts";
import { CUSTOM_IMAGE_TEMPLATE, type PushesService, SCENE_PUSH_TEMPLATE } from "./service.ts";
import type { PushesTable } from "./tables.ts";
import { FORMAT_FILES } from "./views.ts";

type PushRow = Selectable<PushesTable>;

/** A failure that retrying cannot fix: recorded, not retried. */
class PermanentRenderFailure extends Error {}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return new Uint8Array(digest).toHex();
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

/** What follows when a push's render failed for good (no retry follows). */
export type RenderFailedReaction = (push: PushRow, message: string) => Promise<void>;

export interface PushRenderJobOptions {
  /** Reactions to a render that failed for good (a display presentation fails with it). */
  onFailedForGood?: readonly RenderFailedReaction[];
  log?: Log;
  /** Where sources are read and bitmaps written (the pushes' store unless a test injects one). */
  store?: ObjectStore;
  /**
   * The panel of a device that is a display (its size and grey depth), null for any other
   * device: a custom image for a display is drawn for its panel (CONTRACT.md).
   */
  panelOf?: (deviceId: string) => Promise<PanelSpec | null>;
}

export class PushRenderJob {
  private readonly log: Log;
  private readonly store: ObjectStore;
  private readonly onFailedForGood: readonly RenderFailedReaction[];
  private readonly panelOf: (deviceId: string) => Promise<PanelSpec | null>;

  constructor(
    private readonly pushes: PushesService,
    private readonly renderer: Renderer,
    options: PushRenderJobOptions = {},
  ) {
    this.log = options.log ?? silentLog;
    this.store = options.store ?? pushes.store;
    this.onFailedForGood = options.onFailedForGood ?? [];
    this.panelOf = options.panelOf ?? (() => Promise.resolve(null));
  }

  /** The handler of `renderPushQueue`; a throw tells the queue to retry with backoff. */
  async handle(job: { pushId: string }, attempt?: Attempt): Promise<void> {
    const { db } = this.pushes;
    const store = this.store;
    const push = await repo.findPush(db, job.pushId);
    // Deleted (unbind), already rendered or failed for good (a job delivered again): nothing to do.
    if (!push || push.status !== "PREPARE" || push.render_failed_at) return;
    const own = renderPrefix(push.user_id, push.device_id, push.id);
    let wrote = false;
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
      const same = await repo.findIdenticalRender(db, push.device_id, digests);
      const prefix = same?.render_prefix ?? own;
      if (!same) {
        wrote = true;
        await store.put(own + FORMAT_FILES.png, bitmaps.png, "image/png");
        await store.put(own + FORMAT_FILES.raw2, bitmaps.raw2, "application/octet-stream");
        await store.put(own + FORMAT_FILES.raw4, bitmaps.raw4, "application/octet-stream");
      }
      const outcome = await db.transaction().execute(async (trx) => {
        const locked = await repo.lockPush(trx, push.id);
        if (locked?.status !== "PREPARE") return { done: false, ownedBy: locked?.render_prefix };
        const fileId = same?.file_id ?? (await files.insertFile(trx, {
          id: uuidv7(),
          user_id: push.user_id,
          device_id: push.device_id,
          purpose: "push_render",
          object_key: prefix + FORMAT_FILES.png,
          content_type: "image/png",
          size_bytes: bitmaps.png.byteLength,
          status: "confirmed",
          confirmed_at: new Date(),
        })).id;
        await repo.updatePush(trx, push.id, {
          status: "QUEUE",
          render_prefix: prefix,
          file_id: fileId,
          png_sha256: digests.png,
          raw2_sha256: digests.raw2,
          raw4_sha256: digests.raw4,
          rendered_at: new Date(),
          render_error: null,
          render_attempts: locked.render_attempts + 1,
        });
        return { done: true, ownedBy: prefix };
      });
      // Deleted meanwhile (unbind): drop what this attempt wrote, unless another attempt of the
      // same push finished first with the same files.
      if (!outcome.done && wrote && outcome.ownedBy !== own) await store.deletePrefix(own);
    } catch (error) {
      // Nothing references a push's own prefix before it is QUEUE, so this removes only this
      // attempt's files (a deduplicated push wrote none).
      if (wrote) await store.deletePrefix(own).catch(() => {});
      const message = error instanceof Error ? error.message : String(error);
      // A rejected input (corrupt, oversized, unknown template) is permanent: no retry can fix it.
      const permanent = error instanceof PermanentRenderFailure || error instanceof RenderRejected;
      const forGood = permanent || (attempt?.final ?? false);
      // push.failed is emitted with the failure it reports (webhooks).
      await db.transaction().execute(async (trx) => {
        const [recorded] = await repo.recordRenderFailure(trx, push.id, message, forGood);
        if (forGood && recorded && recorded.numUpdatedRows > 0n) {
          await this.pushes.events.emit(trx, push.user_id, "push.failed", {
            pushId: push.id,
            deviceId: push.device_id,
            status: push.status,
            error: message.slice(0, 500),
          });
        }
      });
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
      if (permanent) return;
      throw error;
    }
  }

  private async render(push: PushRow, panel?: PanelSpec): Promise<PushBitmaps> {
    if (push.template === SCENE_PUSH_TEMPLATE) return await this.renderScene(push, panel);
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
    const images: Record<string, Uint8Array> = {};
    for (const file of await files.confirmedUserFiles(this.pushes.db, push.user_id, fileIds)) {
      const bytes = await this.store.get(file.object_key);
      if (bytes) images[file.id] = bytes;
    }
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
    const images: Record<string, Uint8Array> = {};
    for (const file of await files.confirmedUserFiles(this.pushes.db, push.user_id, fileIds)) {
      const bytes = await this.store.get(file.object_key);
      if (bytes) images[file.id] = bytes;
    }
    return { name: push.template, variables, images, now: push.created_at.toISOString() };
  }
}
