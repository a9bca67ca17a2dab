import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { CONTENT_ERRORS } from "./meta.ts";
import { rawItemSchema } from "./views.ts";

/** GET /api/raw-items/{id}: one of the caller's items (404 otherwise). */
export const getRawItem = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/raw-items/{id}",
      tags: ["content"],
      summary: "Get a raw item",
      errorResponses: { ...CONTENT_ERRORS, 400: "id is not a UUID" },
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(rawItemSchema)
  .query(({ ctx, input }) => ctx.services.content.get(ctx.caller.userId, input.id));
