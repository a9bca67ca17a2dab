import { z } from "zod";
import { callerAuth, defineRawRoute } from "../../infra/http/raw.ts";
import { uuidParam } from "../../infra/lib/params.ts";

/** GET /api/files/{fileId}/download: 302 to a signed URL of one of the caller's files. */
export const downloadFile = defineRawRoute({
  method: "GET",
  path: "/api/files/{fileId}/download",
  operationId: "content-downloadFile",
  summary: "Redirect to a signed URL of one of the caller's files",
  tags: ["content"],
  // CONTRACT.md "Who may call what": a PAT acts as its user; checked before anything is read.
  auth: callerAuth(["user", "pat"]),
  params: z.object({ fileId: uuidParam }),
  responses: {
    302: {
      description: "To the signed URL (valid 15 minutes)",
      headers: z.object({ Location: z.string() }),
    },
    400: { description: "fileId is not a UUID" },
    401: { description: "Unauthorized" },
    404: { description: "No such confirmed file of the caller" },
  },
  async handle({ ctx, auth, params }) {
    const url = await ctx.services.content.fileUrl(auth.userId, params.fileId);
    return new Response(null, {
      status: 302,
      // The signed URL is a credential for 15 minutes: no cache keeps it.
      headers: { location: url, "cache-control": "no-store" },
    });
  },
});
