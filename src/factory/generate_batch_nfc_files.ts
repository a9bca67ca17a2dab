import { z } from "zod";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { credentialSchema } from "./views.ts";

/**
 * POST /internal/factory/devices:nfc-files-batch-generate (supervisor): body `{batchId}`;
 * every device of the batch with nfcStatus=pending gets credential version 1.
 */
export const generateBatchNfcFiles = factoryProcedure("generateBatchNfcFiles")
  .meta(
    factoryMeta(
      "POST",
      "/devices:nfc-files-batch-generate",
      "Generate NFC credentials for a batch",
      {
        400: "batchId missing or not a UUID",
        403: "Not a supervisor, or batch outside the scope",
        404: "Batch not found",
      },
    ),
  )
  .input(z.object({ batchId: z.uuid({ message: "must be a UUID" }) }).strict())
  .output(
    z.object({ batchId: z.uuid(), generated: z.number().int(), items: z.array(credentialSchema) }),
  )
  .mutation(({ ctx, input }) =>
    ctx.services.factory.credentials.generateBatch(ctx.principal, input.batchId)
  );
