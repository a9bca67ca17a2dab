/** GET /internal/factory/nfc-files/{credentialId}/download (write; rate limited; SPEC 4.8). */
import { z } from "zod";
import { defineRawRoute } from "../../infra/http/raw.ts";
import { uuidParam } from "../../infra/lib/params.ts";
import { factoryAuth } from "./auth.ts";
import { nfcFileSchema } from "./nfc_files.ts";
import { attachment, FACTORY_ERRORS, FACTORY_PREFIX } from "./raw_docs.ts";

export const downloadNfcFile = defineRawRoute({
  method: "GET",
  path: `${FACTORY_PREFIX}/nfc-files/{credentialId}/download`,
  operationId: "factory-downloadNfcFile",
  summary: "Download a signed .nfc.json file",
  tags: ["factory"],
  auth: factoryAuth("downloadNfcFile"),
  params: z.object({ credentialId: uuidParam }),
  responses: {
    200: {
      description: "The `{serial}.nfc.json` file",
      content: { "application/json": nfcFileSchema },
      headers: z.object({
        "Content-Disposition": z.string().meta({
          header: { description: '`attachment; filename="{serial}.nfc.json"`' },
        }),
      }),
    },
    ...FACTORY_ERRORS({
      400: "credentialId is not a UUID",
      403: "Auditor, repeat download not approved, or outside the scope",
      404: "Credential missing or revoked",
      429: "Download rate limit; see Retry-After",
    }),
  },
  async handle({ ctx, auth, params }) {
    const { file, fileName } = await ctx.services.factory.downloads.download(
      auth,
      params.credentialId,
    );
    return new Response(JSON.stringify(file, null, 2), {
      headers: {
        "content-type": "application/json",
        "content-disposition": attachment(fileName),
        "cache-control": "no-store",
      },
    });
  },
});
