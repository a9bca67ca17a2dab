/**
 * The render job of a push (SPEC 4.6 render stage): the uploaded image (custom pushes) or the
 * template and its variables (the analyze agent's pushes) → renderer → three files under
 * `render/{userId}/{deviceId}/{pushId}/` → file record and PREPARE → QUEUE in one transaction.
 * A failure records the error on the push (still PREPARE) and removes whatever was written, so
 * a push never points at a half-written set of files.
 */
import { type Log, silentLog } from "../lib/log.ts";
import type { Selectable } from "kysely";
import { RenderRejected } from "../render/errors.ts";
import { uuidv7 } from "../lib/ids.ts";
import type { Attempt } from "../jobs/types.ts";
import type { Renderer, TemplateRenderRequest } from "../render/types.ts";
import { templateRegistry } from "../render/templates/registry.ts";
import { renderPrefix } from "../storage/keys.ts";
import type { ObjectStore } from "../storage/object_store.ts";
import * as files from "../files/repository.ts";
import * as repo from "./repository.ts";
import { CUSTOM_IMAGE_TEMPLATE, type PushesService } from "./service.ts";
import type { PushesTable } from "./tables.ts";
import { FORMAT_FILES } from "./views.ts";

type PushRow = Selectable<PushesTable>;

/** A failure that retrying cannot fix: recorded, not retried. */
class PermanentRenderFailure extends Error {}

export interface PushRenderJobOptions {
  log?: Log;
  /** Where sources are read and bitmaps written (the pushes' store unless a test injects one). */
  store?: ObjectStore;
}

export class PushRenderJob {
  private readonly log: Log;
  private readonly store: ObjectStore;

  constructor(
    private readonly pushes: PushesService,
    private readonly renderer: Renderer,
    options: PushRenderJobOptions = {},
  ) {
    this.log = options.log ?? silentLog;
    this.store = options.store ?? pushes.store;
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
      const bitmaps = push.template === CUSTOM_IMAGE_TEMPLATE
        ? await this.renderer.renderImage(await this.customSource(push))
        : await this.renderer.renderTemplate(await this.templateRequest(push));
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
      if (error instanceof PermanentRenderFailure || error instanceof RenderRejected) return;
      throw error;
    }
  }

  private async customSource(push: PushRow): Promise<Uint8Array> {
    const bytes = push.source_key ? await this.store.get(push.source_key) : null;
    if (!bytes) throw new PermanentRenderFailure("Uploaded source image is missing");
    return bytes;
  }

  /**
   * A template push: its variables, and the bytes of the pictures they name, loaded from the
   * push owner's own confirmed files only (a file id of anyone else's is simply not passed, and
   * the renderer refuses the variable).
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
