import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { jsonInteger } from "../../infra/lib/json_number.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { PUSH_ERRORS } from "./meta.ts";
import { uploadTicketSchema } from "./views.ts";
import { withExample } from "../../infra/http/operation.ts";

/** POST /api/devices/{id}/custom-push/upload: a presigned upload ticket for one image. */
export const createUpload = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/devices/{id}/custom-push/upload",
      tags: ["pushes"],
      summary: "Get an upload ticket for a custom image",
      errorResponses: {
        ...PUSH_ERRORS,
        400: "contentType is not image/*, or invalid device id",
        413: "Declared size over 10 MB",
      },
    },
  })
  .input(withExample(
    z.object({
      id: uuidParam,
      contentType: z.string(),
      sizeBytes: jsonInteger((n) => n.min(0)).optional(),
    }),
    { id: "0193a0c0-5d2e-7c4b-9a1f-2b6e8d4c7a10", contentType: "image/jpeg", sizeBytes: 482113 },
  ))
  .output(uploadTicketSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.pushes.issueCustomUpload(ctx.caller.userId, input.id, input)
  );
