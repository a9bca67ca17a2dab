import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import type { Surface } from "../../infra/trpc/surfaces.ts";
import { targetlessMeta } from "./meta.ts";
import { contentSchema } from "./views.ts";

/** GET {prefix}/contents/{id} (SPEC 4.7): polled until `state` is `ready` or `failed`. */
export const getContent = (surface: Surface) =>
  surface.procedure
    .meta(targetlessMeta(surface, "GET", "/contents/{id}", "Read a content", {
      400: "invalid_request: id is not a UUID",
      404: "Content not found (or not the caller's)",
    }))
    .input(z.object({ id: uuidParam }))
    .output(contentSchema)
    .query(({ ctx, input }) => ctx.services.targetless.contents.get(ctx.caller.userId, input.id));
