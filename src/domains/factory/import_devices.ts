/** POST /internal/factory/devices:batch-import?batchId=… (supervisor), multipart field `file`. */
import { z } from "zod";
import { AppError, badRequest } from "../../errors.ts";
import { readLimited } from "../../infra/http/body.ts";
import { defineRawRoute, json } from "../../infra/http/raw.ts";
import { uuidParam } from "../../infra/lib/params.ts";
import { factoryAuth } from "./auth.ts";
import { FACTORY_ERRORS, FACTORY_PREFIX } from "./raw_docs.ts";

/** SPEC 8: the CSV itself may be 4 MiB; the multipart envelope gets a little room on top. */
export const CSV_LIMIT = 4 * 1024 * 1024;
const MULTIPART_OVERHEAD = 64 * 1024;

export const importDevices = defineRawRoute({
  method: "POST",
  path: `${FACTORY_PREFIX}/devices:batch-import`,
  operationId: "factory-importDevices",
  summary: "Import devices from CSV",
  tags: ["factory"],
  auth: factoryAuth("importDevices"),
  query: z.object({ batchId: uuidParam }),
  body: {
    kind: "stream",
    contentType: "multipart/form-data",
    docSchema: z.object({
      file: z.string().meta({ format: "binary", description: "CSV: serial, sku, hwRevision" }),
    }),
    example: { file: "serial,sku,hwRevision\nSN0001,SKU-A,r2\nSN0002,SKU-A,r2\n" },
  },
  responses: {
    200: {
      description: "Rows imported, replayed and refused; bad rows do not block good rows",
      content: {
        "application/json": z.object({
          ok: z.number().int(),
          idempotent: z.number().int(),
          errors: z.array(
            z.object({ row: z.number().int(), serial: z.string(), error: z.string() }),
          ),
        }),
      },
    },
    ...FACTORY_ERRORS({
      400: "Missing batchId, not multipart, no file, bad header",
      403: "Not a supervisor, or batch outside the scope",
      404: "Batch not found",
      409: "Batch closed",
      413: "CSV over 4 MiB or over 50000 rows",
    }),
  },
  async handle({ req, ctx, auth, query }) {
    const factory = ctx.services.factory;
    const type = req.headers.get("content-type") ?? "";
    if (!/^multipart\/form-data\b/i.test(type)) {
      throw badRequest("Content-Type must be multipart/form-data with a file field");
    }
    // Scope and batch state before the upload is read (checks before costs).
    const batch = await factory.registration.importBatch(auth, query.batchId);
    // Read under the limit as it streams in: an oversized upload stops at 4 MiB + envelope.
    const bytes = await readLimited(req, CSV_LIMIT + MULTIPART_OVERHEAD);
    let file: FormDataEntryValue | null;
    try {
      file = (await new Request(req.url, {
        method: "POST",
        headers: { "content-type": type },
        body: bytes,
      }).formData()).get("file");
    } catch {
      throw badRequest("Malformed multipart body");
    }
    if (!(file instanceof File)) throw badRequest("Multipart field file is required");
    if (file.size > CSV_LIMIT) {
      throw new AppError("payload_too_large", `CSV file is over the ${CSV_LIMIT} byte limit`);
    }
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(await file.arrayBuffer());
    } catch {
      throw badRequest("CSV file must be UTF-8");
    }
    return json(await factory.registration.importCsv(auth, batch, text));
  },
});
