import { z } from "zod";
import { uuidParam } from "../lib/params.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { credentialSchema } from "./views.ts";

/**
 * POST /internal/factory/devices/{deviceId}/nfc-credentials:revoke-and-reissue (supervisor):
 * optional body `{reason}`; 200 the new CredentialView (credentialVersion + 1).
 */
export const revokeAndReissue = factoryProcedure("revokeAndReissue")
  .meta(factoryMeta(
    "POST",
    "/devices/{deviceId}/nfc-credentials:revoke-and-reissue",
    "Revoke the NFC credential and issue the next version",
    {
      400: "deviceId is not a UUID",
      403: "Not a supervisor, or device outside the scope",
      404: "Device not found",
      409: "The device has no credential yet",
    },
  ))
  .input(z.object({ deviceId: uuidParam, reason: z.string().trim().max(500).optional() }))
  .output(credentialSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.factory.credentials.revokeAndReissue(ctx.principal, input.deviceId, input.reason)
  );
