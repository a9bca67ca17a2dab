import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import type { Surface } from "../../infra/trpc/surfaces.ts";
import { targetlessMeta } from "./meta.ts";
import { presentationSchema } from "./views.ts";

/**
 * GET {prefix}/presentations/{id} (SPEC 4.7): a pure read that re-signs rendition and Scene
 * image URLs (15 minutes); never renders, publishes, enqueues or wakes a display.
 */
export const getPresentation = (surface: Surface) =>
  surface.procedure
    .meta(targetlessMeta(surface, "GET", "/presentations/{id}", "Read a presentation", {
      400: "invalid_request: id is not a UUID",
      404: "presentation_not_found: missing or not the caller's",
    }))
    .input(z.object({ id: uuidParam }))
    .output(presentationSchema)
    .query(({ ctx, input }) =>
      ctx.services.targetless.presentations.get(ctx.caller.userId, input.id)
    );
