import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { CONTENT_ERRORS } from "./meta.ts";
import { rawItemSchema } from "./views.ts";

/** POST /api/raw-items/{id}/confirm: the pictures are in; the summary stage starts (202). */
export const confirmRawItem = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/raw-items/{id}/confirm",
      tags: ["content"],
      summary: "Confirm a raw item's uploads and start its summary",
      successDescription: "Accepted: the item is processing (a second confirm starts nothing)",
      errorResponses: {
        ...CONTENT_ERRORS,
        400: "id is not a UUID",
        409:
          "A picture is not uploaded, not an image, of a type the renderer does not decode, or over 10 MB",
      },
    },
    status: 202,
  })
  .input(z.object({ id: uuidParam }))
  .output(rawItemSchema)
  .mutation(({ ctx, input }) => ctx.services.content.confirm(ctx.caller.userId, input.id));
