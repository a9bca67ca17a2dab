import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { OWNER_ERRORS } from "../devices/meta.ts";

/** POST /api/devices/{id}/feed-token: a new feed URL for an `image_feed`; the old one stops. */
export const rotateFeedToken = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/devices/{id}/feed-token",
      tags: ["displays"],
      summary: "Replace an image feed's secret URL (the old one is 404 at once)",
      errorResponses: {
        ...OWNER_ERRORS,
        409: "The device is not an image feed (transport image_feed)",
      },
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(z.object({
    feedUrl: z.url().meta({ description: "The new secret URL of the device's picture" }),
  }))
  .mutation(({ ctx, input }) =>
    ctx.services.displays.external.rotateFeedToken(ctx.caller.userId, input.id)
  );
