import { z } from "zod";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { credentialSchema } from "./views.ts";
import { withExample } from "../../infra/http/operation.ts";

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
  .input(withExample(
    z.object({ batchId: z.uuid({ message: "must be a UUID" }) }).strict(),
    { batchId: "0193a0c1-5c7d-7e8f-9a0b-1c2d3e4f5a6b" },
  ))
  .output(
    z.object({ batchId: z.uuid(), generated: z.number().int(), items: z.array(credentialSchema) }),
  )
  .mutation(({ ctx, input }) =>
    ctx.services.factory.credentials.generateBatch(ctx.principal, input.batchId)
  );
