import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { credentialSchema } from "./views.ts";
import { withExample } from "../../infra/http/operation.ts";

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
  .input(withExample(
    z.object({ deviceId: uuidParam, reason: z.string().trim().max(500).optional() }),
    { deviceId: "0193a0c1-6d8e-7f0a-8b1c-2d3e4f5a6b7c", reason: "NFC tag damaged at packing" },
  ))
  .output(credentialSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.factory.credentials.revokeAndReissue(ctx.principal, input.deviceId, input.reason)
  );
