import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import type { Surface } from "../../infra/trpc/surfaces.ts";
import { targetlessMeta } from "./meta.ts";
import { contentSchema } from "./views.ts";

/**
 * POST {prefix}/contents/{id}/confirm (CONTRACT.md): 202 with the content in `processing`; the
 * one step that starts processing. A second confirm starts nothing and answers the content.
 */
export const confirmContent = (surface: Surface) =>
  surface.procedure
    .meta(targetlessMeta(surface, "POST", "/contents/{id}/confirm", "Confirm a content's uploads", {
      400: "invalid_request: id is not a UUID",
      403: "forbidden: the content's display is no longer the caller's",
      404: "Content not found (or not the caller's)",
      409: "invalid_state: an image asset was not uploaded, is over 10 MB or not PNG/JPEG",
    }, { status: 202, successDescription: "Accepted: processing started" }))
    .input(z.object({ id: uuidParam }))
    .output(contentSchema)
    .mutation(async ({ ctx, input }) => {
      const content = await ctx.services.targetless.contents.confirm(ctx.caller.userId, input.id);
      return content;
    });
