import { z } from "zod";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { withExample } from "../../infra/http/operation.ts";
import { timestamp } from "../../infra/lib/wire.ts";

/** POST /api/devices/enrollment-tokens: a display key made in advance (Kindle, Raspberry Pi). */
export const createEnrollmentToken = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/devices/enrollment-tokens",
      tags: ["displays"],
      summary: "Make a display key in advance, for a client configured by hand",
      description: "The client sends the token as `Access-Token` with its MAC in `ID`: its " +
        "first poll makes a display of the caller tied to that MAC, and from then on the token " +
        "is that display's key (with another MAC it is 401), and its `name` the device's " +
        "nickname. A MAC that is another display's (pending, or claimed by anyone) refuses the " +
        "token with 401 and changes nothing. Unused, it expires after 24 hours.",
      errorResponses: {
        409: "The caller holds DISPLAYS_PER_USER displays and unused tokens already",
        429: "The caller holds 20 unused enrollment tokens; `Retry-After` says when one expires",
      },
    },
    status: 201,
  })
  .input(withExample(
    z.object({ name: z.string().max(64).optional() }),
    { name: "Kitchen Kindle" },
  ))
  .output(z.object({
    token: z.string().meta({ description: "Shown once: the display's `Access-Token`" }),
    expiresAt: timestamp,
  }))
  .mutation(({ ctx, input }) =>
    ctx.services.displays.pairing.createEnrollmentToken(ctx.caller.userId, input.name)
  );
