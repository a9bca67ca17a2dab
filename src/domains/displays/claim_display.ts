import { z } from "zod";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { deviceSchema } from "../devices/views.ts";
import { withExample } from "../../infra/http/operation.ts";

/** POST /api/devices/claim: a display's claim code makes it a device of the caller. */
export const claimDisplay = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/devices/claim",
      tags: ["displays"],
      summary: "Claim a display by the code it shows",
      errorResponses: {
        404: "Unknown, expired or already claimed code, or a re-pair of a display another user " +
          "owns (one error for all)",
        409: "The caller holds DISPLAYS_PER_USER displays already",
        429: "Too many wrong codes from this user (10 per 15 minutes) or address (100 a minute)",
      },
    },
  })
  .input(withExample(z.object({ code: z.string().max(64) }), { code: "K7P3XQ" }))
  .output(z.object({ device: deviceSchema, status: z.literal("bound") }))
  .mutation(({ ctx, input }) =>
    ctx.services.displays.pairing.claim(ctx.caller.userId, input.code, ctx.ip)
  );
