import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { downloadRequestSchema } from "./views.ts";

/**
 * POST /internal/factory/download-requests/{requestId}:approve (supervisor): the requester may
 * download once before `expiresAt` (APPROVAL_WINDOW_MS). Declared before `:reject`; both carry
 * the colon inside the last segment, which `{requestId}` alone would also match.
 */
export const approveDownloadRequest = factoryProcedure("approveDownloadRequest")
  .meta(
    factoryMeta("POST", "/download-requests/{requestId}:approve", "Approve a download request", {
      400: "requestId is not a UUID",
      403: "Not a supervisor, or request outside the scope",
      404: "Request not found",
      409: "Request is not pending",
    }),
  )
  .input(z.object({ requestId: uuidParam }))
  .output(downloadRequestSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.factory.downloads.decide(ctx.principal, input.requestId, "approve")
  );
