import { z } from "zod";
import { jsonInteger } from "../../infra/lib/json_number.ts";
import { uuidParam } from "../../infra/lib/params.ts";
import type { Surface } from "../../infra/trpc/surfaces.ts";
import { idempotencyHeader, idempotencyKeyOf } from "./inputs.ts";
import { targetlessMeta } from "./meta.ts";
import { COLOR_MODES, MAX_SIDE } from "./output_profile.ts";
import { renditionSchema } from "./views.ts";
import { withExample } from "../../infra/http/operation.ts";

const side = jsonInteger((n) =>
  n.min(1, "must be at least 1").max(MAX_SIDE, `must be at most ${MAX_SIDE}`)
);

/**
 * POST {prefix}/presentations/{presentationId}/renditions (SPEC 4.7, CONTRACT.md): 202 with the
 * rendition (state `preparing`, `url` and `expiresAt` null while it renders). The same
 * (presentation, format, width, height, colorMode) answers the same rendition, whatever the
 * limits.
 */
export const createRendition = (surface: Surface) =>
  surface.procedure
    .meta(targetlessMeta(
      surface,
      "POST",
      "/presentations/{presentationId}/renditions",
      "Add a PNG rendition",
      {
        400: "invalid_request: size, colorMode, format, pixel limit or Idempotency-Key",
        404: "presentation_not_found: missing or not the caller's",
        409: "invalid_state: rendition limit of the presentation reached, a display-bound or " +
          "failed presentation, or Idempotency-Key reused with another body",
        429: "rate_limited: too many renditions preparing; see Retry-After",
      },
      {
        status: 202,
        successDescription: "Accepted: the rendition",
        requestHeaders: idempotencyHeader,
      },
    ))
    .input(
      withExample(
        z.object({
          presentationId: uuidParam,
          width: side,
          height: side,
          colorMode: z.enum(COLOR_MODES).optional()
            .meta({ description: "default: the presentation's output colorMode" }),
          format: z.literal("png").optional(),
        }).strict(),
        {
          presentationId: "0193a0c1-4b6c-7d8e-9f0a-1b2c3d4e5f60",
          width: 340,
          height: 340,
          colorMode: "grayscale",
        },
      ),
    )
    .output(renditionSchema)
    .mutation(async ({ ctx, input }) => {
      const key = idempotencyKeyOf(ctx.req.headers);
      const { presentationId, ...body } = input;
      const rendition = await ctx.services.targetless.renditions.add(
        ctx.caller.userId,
        presentationId,
        body,
        key,
      );
      return rendition;
    });
