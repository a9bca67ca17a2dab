import { z } from "zod";
import { userOrPatProcedure } from "../trpc/auth.ts";
import { deviceSchema } from "../devices/views.ts";

// Loose field types on purpose: a wrongly typed credential field gets the same 400 as a wrong
// proof (SPEC 4.5: one indistinguishable error), not a zod message naming the field.
const loose = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

/** POST /api/devices/bind/nfc: binds a registered device to the caller by its NFC credential. */
export const bindNfc = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/devices/bind/nfc",
      tags: ["devices"],
      summary: "Bind a device with its NFC credential",
      errorResponses: {
        400:
          "Invalid NFC credential (malformed, wrong proof, unsupported version, unknown key, or revoked)",
        401: "Unauthorized",
        404: "Device not registered at the factory",
        409: "Device bound to another user",
      },
    },
  })
  .input(z.object({
    version: loose(z.number().int()),
    keyId: loose(z.string()),
    hwId: loose(z.string()),
    credentialVersion: loose(z.number().int()),
    proof: loose(z.string()),
  }))
  .output(z.object({ device: deviceSchema, status: z.enum(["bound", "already_bound"]) }))
  .mutation(({ ctx, input }) => ctx.services.binding.bindNfc(ctx.caller.userId, input));
