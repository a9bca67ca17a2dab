import { z } from "zod";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { deviceSchema } from "../devices/views.ts";
import { withExample } from "../../infra/http/operation.ts";

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
  .input(withExample(
    z.object({
      version: loose(z.number().int()),
      keyId: loose(z.string()),
      hwId: loose(z.string()),
      credentialVersion: loose(z.number().int()),
      proof: loose(z.string()),
    }),
    // The fields of the tag's `dds://bind?v=2&kid=k1&hw=…&cv=1&p=…` (docs/factory.md).
    {
      version: 2,
      keyId: "k1",
      hwId: "8f3a1c9e5b7d4e2fa0b1c2d3e4f50617",
      credentialVersion: 1,
      proof: "Xk3v9ZbT1nYq2w8Lr5Hc0PmA7sJd4GfE6uIo1KxWzQy",
    },
  ))
  .output(z.object({ device: deviceSchema, status: z.enum(["bound", "already_bound"]) }))
  .mutation(({ ctx, input }) => ctx.services.binding.bindNfc(ctx.caller.userId, input));
