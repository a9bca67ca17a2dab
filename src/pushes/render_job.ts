/**
 * The render job of a push (SPEC 4.6 render stage): source image → renderer → three files under
 * `render/{userId}/{deviceId}/{pushId}/` → file record and PREPARE → QUEUE in one transaction.
 * A failure records the error on the push (still PREPARE) and removes whatever was written, so
 * a push never points at a half-written set of files.
 */
import { type Log, silentLog } from "../lib/log.ts";
import type { Selectable } from "kysely";
import { RenderRejected } from "../render/errors.ts";
import { uuidv7 } from "../lib/ids.ts";
import type { Attempt } from "../jobs/types.ts";
import type { Renderer } from "../render/types.ts";
import { renderPrefix } from "../storage/keys.ts";
import type { ObjectStore } from "../storage/object_store.ts";
import * as files from "../files/repository.ts";
import * as repo from "./repository.ts";
import { CUSTOM_IMAGE_TEMPLATE, type PushesService } from "./service.ts";
import type { PushesTable } from "./tables.ts";
import { FORMAT_FILES } from "./views.ts";

type PushRow = Selectable<PushesTable>;

/** Produces the source image of a template push (registered by the domain owning the template). */
export type TemplateSource = (push: PushRow) => Promise<Uint8Array>;

/** A failure that retrying cannot fix: recorded, not retried. */
class PermanentRenderFailure extends Error {}

/** What follows when a push's render failed for good (no retry follows). */
export type RenderFailedReaction = (push: PushRow, message: string) => Promise<void>;

export interface PushRenderJobOptions {
  /** Sources of non-custom templates, by template name. */
  templateSources?: ReadonlyMap<string, TemplateSource>;
  /** Reactions to a render that failed for good (a display presentation fails with it). */
  onFailedForGood?: RenderFailedReaction[];
  log?: Log;
  /** Where sources are read and bitmaps written (the pushes' store unless a test injects one). */
  store?: ObjectStore;
}

export class PushRenderJob {
  private readonly templateSources: ReadonlyMap<string, TemplateSource>;
  private readonly log: Log;
  private readonly store: ObjectStore;
  private readonly onFailedForGood: RenderFailedReaction[];

  constructor(
    private readonly pushes: PushesService,
    private readonly renderer: Renderer,
    options: PushRenderJobOptions = {},
  ) {
    this.templateSources = options.templateSources ?? new Map();
    this.log = options.log ?? silentLog;
    this.store = options.store ?? pushes.store;
    this.onFailedForGood = options.onFailedForGood ?? [];
  }

  /** The handler of `renderPushQueue`; a throw tells the queue to retry with backoff. */
  async handle(job: { pushId: string }, attempt?: Attempt): Promise<void> {
    const { db } = this.pushes;
    const store = this.store;
    const push = await repo.findPush(db, job.pushId);
    // Deleted (unbind) or already rendered (a retried job): nothing to do.
    if (!push || push.status !== "PREPARE") return;
    const prefix = renderPrefix(push.user_id, push.device_id, push.id);
    try {
      const bitmaps = await this.render(push);
      await store.put(prefix + FORMAT_FILES.png, bitmaps.png, "image/png");
      await store.put(prefix + FORMAT_FILES.raw2, bitmaps.raw2, "application/octet-stream");
      await store.put(prefix + FORMAT_FILES.raw4, bitmaps.raw4, "application/octet-stream");
      const done = await db.transaction().execute(async (trx) => {
        const locked = await repo.lockPush(trx, push.id);
        if (locked?.status !== "PREPARE") return false;
        const file = await files.insertFile(trx, {
          id: uuidv7(),
          user_id: push.user_id,
          device_id: push.device_id,
          purpose: "push_render",
          object_key: prefix + FORMAT_FILES.png,
          content_type: "image/png",
          size_bytes: bitmaps.png.byteLength,
          status: "confirmed",
          confirmed_at: new Date(),
        });
        await repo.updatePush(trx, push.id, {
          status: "QUEUE",
          render_prefix: prefix,
          file_id: file.id,
          rendered_at: new Date(),
          render_error: null,
          render_attempts: locked.render_attempts + 1,
        });
        return true;
      });
      if (!done) await store.deletePrefix(prefix);
    } catch (error) {
      await store.deletePrefix(prefix).catch(() => {});
      const message = error instanceof Error ? error.message : String(error);
      await repo.recordRenderFailure(db, push.id, message);
      this.log.info("render failed", {
        pushId: push.id,
        error: message,
        attempt: attempt?.number,
        final: attempt?.final,
      });
      // A rejected input (corrupt, oversized, unknown template) is permanent: no retry can fix it.
      const permanent = error instanceof PermanentRenderFailure || error instanceof RenderRejected;
      if (permanent || (attempt?.final ?? false)) {
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

  /**
   * The three bitmaps of a push: a picture source (custom image, or a registered template
   * source) through the image pipeline, any other template through the template pipeline.
   * MERGE NOTE: the content pipeline (issue 10) also renders templates here; keep one version.
   */
  private async render(push: PushRow) {
    if (push.template === CUSTOM_IMAGE_TEMPLATE || this.templateSources.has(push.template)) {
      return await this.renderer.renderImage(await this.sourceOf(push));
    }
    return await this.renderer.renderTemplate({
      name: push.template,
      variables: push.params,
      now: push.created_at.toISOString(),
    });
  }

  private async sourceOf(push: PushRow): Promise<Uint8Array> {
    if (push.template === CUSTOM_IMAGE_TEMPLATE) {
      const bytes = push.source_key ? await this.store.get(push.source_key) : null;
      if (!bytes) throw new PermanentRenderFailure("Uploaded source image is missing");
      return bytes;
    }
    return await this.templateSources.get(push.template)!(push);
  }
}
