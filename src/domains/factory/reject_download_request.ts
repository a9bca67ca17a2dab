import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { downloadRequestSchema } from "./views.ts";
import { withExample } from "../../infra/http/operation.ts";

/** POST /internal/factory/download-requests/{requestId}:reject (supervisor): `{reason}` required. */
export const rejectDownloadRequest = factoryProcedure("rejectDownloadRequest")
  .meta(factoryMeta("POST", "/download-requests/{requestId}:reject", "Reject a download request", {
    400: "Missing reason, or requestId is not a UUID",
    403: "Not a supervisor, or request outside the scope",
    404: "Request not found",
    409: "Request is not pending",
  }))
  .input(withExample(
    z.object({
      requestId: uuidParam,
      reason: z.string({ message: "is required" }).trim().min(1, "is required").max(500),
    }),
    {
      requestId: "0193a0c1-7e9f-7a0b-9c1d-2e3f4a5b6c7d",
      reason: "Not part of today's production run",
    },
  ))
  .output(downloadRequestSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.factory.downloads.decide(ctx.principal, input.requestId, "reject", input.reason)
  );
