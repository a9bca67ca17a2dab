import { z } from "zod";
import { jsonBoolean, uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { withExample } from "../../infra/http/operation.ts";
import { sleepWindowSchema } from "./sleep.ts";
import { OWNER_ERRORS } from "../devices/meta.ts";
import {
  BIT_DEPTHS,
  MAX_REFRESH_RATE,
  MAX_SIDE,
  MIN_REFRESH_RATE,
  profileSchema,
  ROTATIONS,
} from "./views.ts";

/** PUT /api/devices/{id}/display-profile: any of the fields; answers the whole profile. */
export const setDisplayProfile = userOrPatProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/devices/{id}/display-profile",
      tags: ["displays"],
      summary: "Set any field of a display's profile",
      errorResponses: {
        ...OWNER_ERRORS,
        400: "Invalid body or device id, an unknown model, or colors that are not 2^bitDepth",
        404: "Device not found, or not a display",
      },
    },
  })
  .input(withExample(
    z.object({
      id: uuidParam,
      model: z.string().max(64).optional(),
      width: z.number().int().min(1).max(MAX_SIDE).optional(),
      height: z.number().int().min(1).max(MAX_SIDE).optional(),
      bitDepth: z.union(BIT_DEPTHS.map((d) => z.literal(d))).optional(),
      colors: z.number().int().optional().meta({ description: "Must be 2^bitDepth when given" }),
      rotation: z.union(ROTATIONS.map((d) => z.literal(d))).optional(),
      refreshRate: z.number().int().min(MIN_REFRESH_RATE).max(MAX_REFRESH_RATE).optional(),
      sleepWindow: sleepWindowSchema.nullable().optional().meta({ description: "null clears it" }),
      keyless: jsonBoolean.optional().meta({
        description: "true: polls with the display's MAC and no key show its pictures",
      }),
    }),
    { id: "0193a0c0-5d2e-7c4b-9a1f-2b6e8d4c7a10", bitDepth: 2 },
  ))
  .output(profileSchema)
  .mutation(({ ctx, input }) => {
    const { id, ...fields } = input;
    return ctx.services.displays.profiles.setProfile(ctx.caller.userId, id, fields);
  });
