import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { PUSH_ERRORS } from "./meta.ts";
import { PUSH_STATUSES } from "./tables.ts";
import { pushPageSchema } from "./views.ts";

const timestamp = z.iso.datetime({ offset: true, message: "must be an RFC 3339 timestamp" });

/** GET /api/devices/{id}/pushes: history, newest first, keyset cursor on (createdAt, id). */
export const listPushes = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/devices/{id}/pushes",
      tags: ["pushes"],
      summary: "List the device's pushes",
      errorResponses: { ...PUSH_ERRORS, 400: "Invalid device id, filter, limit or cursor" },
    },
  })
  .input(z.object({
    id: uuidParam,
    status: z.enum(PUSH_STATUSES).optional(),
    from: timestamp.optional(),
    to: timestamp.optional(),
    cursor: z.string().optional(),
    limit: z.coerce.number().int().min(1, "must be at least 1").optional()
      .meta({ description: "default 20; values over 50 are capped at 50" }),
  }))
  .output(pushPageSchema)
  .query(({ ctx, input }) => {
    const { id, ...query } = input;
    return ctx.services.pushes.list(ctx.caller.userId, id, query);
  });
