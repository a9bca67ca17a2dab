/**
 * The rendition job (SPEC 3.2, 3.3, 4.7): renders a presentation's stored Scene at one size and
 * colour mode in the render pool, stores the PNG under `renditions/{userId}/`, and marks the
 * rendition `ready`, or `failed` with its problem (a failed rendition affects nothing else).
 * Completions of one presentation run under its row lock, so when the last initial rendition is
 * done the presentation becomes `ready` exactly once; added renditions never change it.
 */
import { type Log, silentLog } from "../../infra/lib/log.ts";
import type { Attempt } from "../../infra/jobs/types.ts";
import { MAX_SCENE_PICTURES, ownedPictures } from "./pictures.ts";
import { RenderRejected } from "../../infra/render/errors.ts";
import { renditionKey } from "./keys.ts";
import type { Renderer } from "../../infra/render/types.ts";
import type { SceneEnvelope } from "../../infra/render/scene/types.ts";
import type { TargetlessDeps } from "./deps.ts";
import * as repo from "./repository.ts";
import { startWaiting } from "./slots.ts";
import type { Trx } from "../../schema.ts";
import type { Problem, RenditionsTable } from "./tables.ts";
import { sceneFileIds } from "./views.ts";
import type { Selectable, Updateable } from "kysely";

type RenditionRow = Selectable<RenditionsTable>;

/** The handler of `renderRenditionQueue`. */
export class RenditionJob {
  private readonly log: Log;

  constructor(
    private readonly deps: TargetlessDeps,
    private readonly renderer: Renderer,
    options: { log?: Log } = {},
  ) {
    this.log = options.log ?? silentLog;
  }

  /** Renders one rendition; a throw retries the job. */
  async handle(job: { renditionId: string }, attempt?: Attempt): Promise<void> {
    const { db, store } = this.deps;
    const rendition = await repo.findRendition(db, job.renditionId);
    // A waiting rendition has no slot yet (slots.ts): its job is sent when it gets one.
    if (!rendition || rendition.state !== "preparing" || rendition.waiting) return;
    const presentation = await repo.findPresentationById(db, rendition.presentation_id);
    const scene = presentation?.scene as SceneEnvelope | null | undefined;
    if (!presentation || !scene) {
      await this.finish(rendition, {
        state: "failed",
        failure: repo.json({ code: "no_scene", message: "The presentation has no Scene" }),
      });
      return;
    }
    let png: Uint8Array;
    try {
      // Issue 12 may add a dither option for monochrome: it belongs in this request, in the
      // rendition row and in the dedup key of `renditions.ts`.
      png = await this.renderer.renderScene({
        scene: scene.data,
        images: await this.images(presentation.user_id, scene),
        width: rendition.width,
        height: rendition.height,
        colorMode: rendition.color_mode,
        mode: presentation.mode === "hardcode" ? "hardcode" : "auto",
        maxPixels: this.deps.limits.maxRenditionPixels,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.log.info("rendition failed", {
        renditionId: rendition.id,
        error: message,
        attempt: attempt?.number,
      });
      // A rejected input is permanent; anything else (a crashed worker) is retried first.
      const rejected = error instanceof RenderRejected;
      if (!rejected && !(attempt?.final ?? true)) throw error;
      const problem: Problem = rejected
        ? { code: error.code, message }
        : { code: "render_failed", message: "The rendition could not be rendered" };
      await this.finish(rendition, { state: "failed", failure: repo.json(problem) });
      return;
    }
    const key = renditionKey(rendition);
    await store.put(key, png, "image/png");
    const done = await this.finish(rendition, { state: "ready", object_key: key, failure: null });
    // Finished or deleted meanwhile (account deletion): the PNG belongs to nothing.
    if (!done) await store.delete(key).catch(() => {});
  }

  /** Picture bytes by file id: only the presentation owner's confirmed files. */
  private images(userId: string, scene: SceneEnvelope) {
    return ownedPictures(this.deps, userId, sceneFileIds(scene), MAX_SCENE_PICTURES);
  }

  /**
   * Records the outcome; the presentation is ready once its initial renditions are done. The
   * slot this rendition held is free then: the user's oldest waiting rendition starts (slots.ts).
   */
  private async finish(
    rendition: RenditionRow,
    changes: Updateable<RenditionsTable>,
  ): Promise<boolean> {
    return await this.deps.db.transaction().execute(async (trx) => {
      const done = await this.record(trx, rendition, changes);
      // The user's lock last: a finish waiting for its presentation's row never holds up the
      // user's rendition requests meanwhile.
      await repo.lockUserRenditions(trx, rendition.user_id);
      await startWaiting(this.deps, trx, rendition.user_id);
      return done;
    });
  }

  private async record(trx: Trx, rendition: RenditionRow, changes: Updateable<RenditionsTable>) {
    const presentation = await repo.lockPresentation(trx, rendition.presentation_id);
    if (!presentation) return false;
    if (!(await repo.finishRendition(trx, rendition.id, changes))) return false;
    if (
      rendition.initial && presentation.state === "preparing" &&
      await repo.initialRenditionsDone(trx, presentation.id)
    ) {
      await repo.updatePresentation(trx, presentation.id, { state: "ready" });
      await this.deps.events?.emit(trx, presentation.user_id, "presentation.ready", {
        presentationId: presentation.id,
      });
    }
    return true;
  }
}
