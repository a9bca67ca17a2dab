import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { formatQuery, PUSH_ERRORS } from "./meta.ts";
import { parseFormat, pushUrlSchema } from "./views.ts";

/** GET /api/devices/{id}/push/{pushId}: that push's URL; changes no push state (rule 3). */
export const getPushById = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/devices/{id}/push/{pushId}",
      tags: ["pushes"],
      summary: "Get one push of the device",
      errorResponses: { ...PUSH_ERRORS, 404: "Device or push not found, or push not rendered" },
    },
  })
  .input(z.object({ id: uuidParam, pushId: uuidParam, format: formatQuery }))
  .output(pushUrlSchema)
  .query(({ ctx, input }) =>
    ctx.services.pushes.getById(
      ctx.caller.userId,
      input.id,
      input.pushId,
      parseFormat(input.format),
    )
  );
