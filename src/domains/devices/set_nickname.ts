import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { OWNER_ERRORS } from "./meta.ts";
import { NICKNAME_MAX } from "./service.ts";
import { withExample } from "../../infra/http/operation.ts";

/** PUT /api/devices/{id}/nickname: an empty string clears it. */
export const setNickname = userOrPatProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/devices/{id}/nickname",
      tags: ["devices"],
      summary: "Set or clear a device's nickname",
      errorResponses: { ...OWNER_ERRORS, 400: "Invalid body or device id" },
    },
  })
  .input(withExample(
    z.object({
      id: uuidParam,
      // Checked by the service after trimming; stated here for the document.
      nickname: z.string().meta({ maxLength: NICKNAME_MAX, description: "Empty clears it" }),
    }),
    { id: "0193a0c0-5d2e-7c4b-9a1f-2b6e8d4c7a10", nickname: "Kitchen" },
  ))
  .output(z.object({ message: z.string() }))
  .mutation(({ ctx, input }) =>
    ctx.services.devices.setNickname(ctx.caller.userId, input.id, input.nickname)
  );
