/**
 * Adding a rendition (SPEC 4.7 `POST .../renditions`, 3.3, 8): a PNG size of a stored Scene, no
 * AI and no plan gate. One transaction per request holds the user's advisory lock, so across
 * every process of the service: a request with the dedup key (presentation, format, width,
 * height, colorMode) of an existing rendition gets that rendition, whatever the limits; a new one
 * counts against the per-presentation limit (409 `invalid_state`, initial renditions included)
 * and the user's concurrent preparing limit (429 `rate_limited` with Retry-After).
 */
import { AppError, badRequest } from "../../errors.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import type { ColorMode } from "../../infra/render/scene/types.ts";
import type { TargetlessDeps } from "./deps.ts";
import { fingerprint } from "../../infra/lib/canonical_json.ts";
import { checkSize } from "./output_profile.ts";
import { presentationNotFound, type PresentationsService } from "./presentations_service.ts";
import { renderRenditionQueue } from "./queues.ts";
import * as repo from "./repository.ts";
import type { OutputProfile } from "./tables.ts";
import type { RenditionView } from "./views.ts";

/** The body of `POST .../renditions` (CONTRACT.md). */
export interface RenditionInput {
  width: number;
  height: number;
  colorMode?: ColorMode;
  format?: "png";
}

/** Seconds a client should wait before asking again over the concurrent limit. */
export const RETRY_AFTER_SECONDS = 2;

export class RenditionsService {
  constructor(
    private readonly deps: TargetlessDeps,
    private readonly presentations: PresentationsService,
  ) {}

  /** Adds (or finds) a rendition; the presentation answers with its signed URL when ready. */
  async add(
    userId: string,
    presentationId: string,
    input: RenditionInput,
    key?: string,
  ): Promise<RenditionView> {
    const { db, limits } = this.deps;
    const presentation = await repo.findPresentation(db, userId, presentationId);
    if (!presentation) throw presentationNotFound();
    if (presentation.kind === "display") {
      throw new AppError("invalid_state", "A display-bound presentation has no renditions");
    }
    if (presentation.scene === null) {
      throw new AppError("invalid_state", "The presentation has no Scene: its generation failed");
    }
    const problem = checkSize(input, limits.maxRenditionPixels, "Rendition");
    if (problem) throw badRequest(problem);
    // An omitted colour mode is the presentation's own (SPEC 2.10 output profile).
    const colorMode = input.colorMode ?? (presentation.output as OutputProfile).colorMode;
    const dedup = {
      presentationId: presentation.id,
      format: "png",
      width: input.width,
      height: input.height,
      colorMode,
    };
    const print = fingerprint(dedup);
    const row = await db.transaction().execute(async (trx) => {
      await repo.lockUserRenditions(trx, userId);
      if (key) {
        const seen = await repo.findIdempotencyKey(trx, userId, "renditions", key);
        if (seen && seen.fingerprint !== print) {
          throw new AppError(
            "invalid_state",
            "Idempotency-Key was already used with a different request",
          );
        }
        const earlier = seen ? await repo.findRendition(trx, seen.resource_id) : undefined;
        if (earlier) return earlier;
      }
      const remember = async (id: string) => {
        if (!key) return;
        await repo.insertIdempotencyKey(trx, {
          user_id: userId,
          scope: "renditions",
          key,
          fingerprint: print,
          resource_id: id,
        });
      };
      // SPEC 8: a dedup hit is never limited.
      const existing = await repo.findRenditionByKey(trx, dedup);
      if (existing) {
        await remember(existing.id);
        return existing;
      }
      const count = await repo.countRenditions(trx, presentation.id);
      if (count >= limits.maxRenditionsPerPresentation) {
        throw new AppError(
          "invalid_state",
          `The presentation has ${count} renditions, the limit of ${limits.maxRenditionsPerPresentation}`,
        );
      }
      const preparing = await repo.countPreparing(trx, userId);
      if (preparing >= limits.maxConcurrentRenditions) {
        throw new AppError(
          "rate_limited",
          `${preparing} renditions are still preparing, the limit of ${limits.maxConcurrentRenditions}; retry later`,
          { "Retry-After": String(RETRY_AFTER_SECONDS) },
        );
      }
      const created = await repo.insertRendition(trx, {
        id: uuidv7(),
        presentation_id: presentation.id,
        user_id: userId,
        format: "png",
        width: input.width,
        height: input.height,
        color_mode: colorMode,
        initial: false,
        state: "preparing",
        object_key: null,
        failure: null,
      });
      await remember(created.id);
      await this.deps.jobs.send(renderRenditionQueue, { renditionId: created.id }, { trx });
      return created;
    });
    return await this.presentations.renditionView(row);
  }
}
