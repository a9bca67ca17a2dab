import type { Surface } from "../../infra/trpc/surfaces.ts";
import { z } from "zod";
import { createContentInput, idempotencyHeader, idempotencyKeyOf } from "./inputs.ts";
import { targetlessMeta } from "./meta.ts";
import { contentSchema } from "./views.ts";

/**
 * POST {prefix}/contents (SPEC 4.7): 201 with the content and an upload ticket per image asset.
 * A repeated Idempotency-Key with the same body answers the first content again (201,
 * `Idempotent-Replayed: true`), with another body 409 `invalid_state`.
 */
/** Set on a replay of an earlier create with the same Idempotency-Key and body. */
const replayedHeader = z.object({
  "Idempotent-Replayed": z.literal("true").optional().meta({
    description: "Present when this is the content an earlier request with the key created",
  }),
});

export const createContent = (surface: Surface) =>
  surface.procedure
    .meta(targetlessMeta(surface, "POST", "/contents", "Create a content", {
      400: "invalid_request: invalid fields or output profile, pixel limit, mode and " +
        "output/displayId mismatch, malformed Idempotency-Key, a credential in the content",
      402: "payment_required: mode auto while the subscription's billing failed",
      403: "plan_upgrade_required: mode auto on the free plan; forbidden: displayId is " +
        "another user's device",
      404: "displayId is not a device",
      409: "invalid_state: Idempotency-Key reused with another body",
      413: "An image asset's declared size is over 10 MB",
    }, {
      status: 201,
      successDescription: "Created",
      requestHeaders: idempotencyHeader,
      responseHeaders: replayedHeader,
    }))
    .input(createContentInput)
    .output(contentSchema)
    .mutation(async ({ ctx, input }) => {
      const key = idempotencyKeyOf(ctx.req.headers);
      const result = await ctx.services.targetless.contents.create(ctx.caller.userId, input, key);
      if (result.replayed) ctx.response.headers["Idempotent-Replayed"] = "true";
      return result.content;
    });
