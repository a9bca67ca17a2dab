import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { OWNER_ERRORS } from "../devices/meta.ts";
import { profileSchema } from "./views.ts";

/** GET /api/devices/{id}/display-profile: how the display's pushes are drawn. */
export const getDisplayProfile = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/devices/{id}/display-profile",
      tags: ["displays"],
      summary: "Read a display's profile",
      errorResponses: { ...OWNER_ERRORS, 404: "Device not found, or not a display" },
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(profileSchema)
  .query(({ ctx, input }) =>
    ctx.services.displays.profiles.getProfile(ctx.caller.userId, input.id)
  );
