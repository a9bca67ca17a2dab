import { z } from "zod";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { deviceListItemSchema } from "./views.ts";

/** GET /api/devices: the caller's devices; null optionals omitted (SPEC 2.7). */
export const listDevices = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/devices",
      tags: ["devices"],
      summary: "List the caller's devices",
      errorResponses: { 401: "Unauthorized" },
    },
  })
  .input(z.void())
  .output(z.array(deviceListItemSchema))
  .query(({ ctx }) => ctx.services.devices.list(ctx.caller.userId));
