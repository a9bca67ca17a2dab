import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { downloadRequestSchema } from "./views.ts";

/** POST /internal/factory/nfc-files/{credentialId}/download-requests: 201 pending request. */
export const createDownloadRequest = factoryProcedure("createDownloadRequest")
  .meta({
    ...factoryMeta(
      "POST",
      "/nfc-files/{credentialId}/download-requests",
      "Request a repeat download",
      {
        400: "credentialId is not a UUID",
        403: "Auditor, or credential outside the scope",
        404: "Credential missing or revoked",
        409: "A request is already pending for this credential",
      },
    ),
    status: 201,
  })
  .input(z.object({ credentialId: uuidParam }))
  .output(downloadRequestSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.factory.downloads.createRequest(ctx.principal, input.credentialId)
  );
