/**
 * POST /internal/factory/nfc-files:download-zip (supervisor; rate limited), body
 * `{batchId, offset?, limit?}`: the files in scope, at most MAX_ZIP_FILES per ZIP.
 */
import { z } from "zod";
import { defineRawRoute } from "../../infra/http/raw.ts";
import { uuidParam } from "../../infra/lib/params.ts";
import { factoryAuth } from "./auth.ts";
import { MAX_ZIP_FILES } from "./downloads_service.ts";
import { attachment, FACTORY_ERRORS, FACTORY_PREFIX } from "./raw_docs.ts";

const count = z.number().int().min(0);

export const downloadZip = defineRawRoute({
  method: "POST",
  path: `${FACTORY_PREFIX}/nfc-files:download-zip`,
  operationId: "factory-downloadZip",
  summary: "Download every NFC file of a batch as a ZIP",
  tags: ["factory"],
  auth: factoryAuth("downloadZip"),
  body: {
    kind: "json",
    schema: z.object({
      batchId: uuidParam,
      offset: count.optional().meta({ description: "Files to skip, in serial order (default 0)" }),
      limit: count.min(1).max(MAX_ZIP_FILES).optional().meta({
        description: "Files in this ZIP; needed when the batch has more than the maximum",
      }),
    }),
    example: { batchId: "0193a0c1-5c7d-7e8f-9a0b-1c2d3e4f5a6b", offset: 0, limit: 500 },
  },
  responses: {
    200: {
      description: "ZIP of `{serial}.nfc.json` files",
      content: { "application/zip": z.string().meta({ format: "binary" }) },
    },
    ...FACTORY_ERRORS({
      400: "batchId missing or not a UUID, or a bad offset or limit",
      403: "Not a supervisor, or batch outside the scope",
      404: "Batch not found or without NFC files",
      413: `More than ${MAX_ZIP_FILES} files and no limit`,
      429: "Download rate limit; see Retry-After",
    }),
  },
  async handle({ ctx, auth, body }) {
    const { zip, fileName } = await ctx.services.factory.downloads.downloadZip(
      auth,
      body.batchId,
      { offset: body.offset, limit: body.limit },
    );
    return new Response(zip, {
      headers: {
        "content-type": "application/zip",
        "content-disposition": attachment(fileName),
        "cache-control": "no-store",
      },
    });
  },
});
