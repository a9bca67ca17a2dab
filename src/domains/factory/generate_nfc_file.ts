import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { credentialSchema } from "./views.ts";

/** POST /internal/factory/devices/{deviceId}/nfc-files: 201 CredentialView, 409 when issued. */
export const generateNfcFile = factoryProcedure("generateNfcFile")
  .meta({
    ...factoryMeta("POST", "/devices/{deviceId}/nfc-files", "Generate the NFC credential", {
      400: "deviceId is not a UUID",
      403: "Auditor, or device outside the scope",
      404: "Device not found",
      409: "A credential is already generated for this device",
    }),
    status: 201,
  })
  .input(z.object({ deviceId: uuidParam }))
  .output(credentialSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.factory.credentials.generate(ctx.principal, input.deviceId)
  );
