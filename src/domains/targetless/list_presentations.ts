import { z } from "zod";
import type { Surface } from "../../infra/trpc/surfaces.ts";
import { targetlessMeta } from "./meta.ts";
import { PRESENTATION_STATES, presentationPageSchema } from "./views.ts";

/** GET {prefix}/presentations (SPEC 4.7): newest first, `{items, nextCursor, hasMore}`. */
export const listPresentations = (surface: Surface) =>
  surface.procedure
    .meta(targetlessMeta(surface, "GET", "/presentations", "List presentations", {
      400: "invalid_request: scope, state, limit or cursor",
    }))
    .input(z.object({
      scope: z.enum(["generated", "display", "all"]).optional()
        .meta({ description: "generated (default: targetless), display or all" }),
      state: z.enum(PRESENTATION_STATES).optional().meta({ description: "default: every state" }),
      limit: z.coerce.number().int("must be an integer").min(1, "must be at least 1")
        .max(50, "must be at most 50").optional().meta({ description: "1-50, default 20" }),
      cursor: z.string().optional().meta({ description: "`nextCursor` of the previous page" }),
    }))
    .output(presentationPageSchema)
    .query(({ ctx, input }) =>
      ctx.services.targetless.presentations.list(ctx.caller.userId, input)
    );
