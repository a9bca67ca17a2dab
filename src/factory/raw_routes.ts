/**
 * The factory endpoints that are not JSON in and out (SPEC 4.8): the multipart CSV import, the
 * `.nfc.json` download and the batch ZIP. They share the procedures' authentication.
 */
import { AppError, badRequest } from "../errors.ts";
import { readLimited } from "../http/body.ts";
import type { RawRoute } from "../http/raw.ts";
import { json } from "../http/raw.ts";
import { readJson } from "../http/body.ts";
import { isUuid } from "../lib/ids.ts";
import { MAX_ZIP_FILES } from "./downloads_service.ts";

const PREFIX = "/internal/factory";
/** SPEC 8: the CSV itself may be 4 MiB; the multipart envelope gets a little room on top. */
export const CSV_LIMIT = 4 * 1024 * 1024;
const MULTIPART_OVERHEAD = 64 * 1024;

const auth = { Authorization: [] };

/**
 * `attachment; filename="…"` with the name reduced to safe ASCII: an order number may hold any
 * text, and a header value with a line break or a character past U+00FF is refused by `Headers`
 * (a 500 for the whole download).
 */
export function attachment(name: string): string {
  return `attachment; filename="${name.replace(/[^A-Za-z0-9._-]/g, "_")}"`;
}
const errors = (extra: Record<number, string>) =>
  Object.fromEntries(
    Object.entries({ 401: "Missing or unknown factory token", ...extra }).map((
      [k, v],
    ) => [k, { description: v }]),
  );

/** POST /internal/factory/devices:batch-import?batchId=… (supervisor), multipart field `file`. */
export const importDevices: RawRoute = {
  method: "POST",
  path: `${PREFIX}/devices:batch-import`,
  async handle(req, ctx) {
    const factory = ctx.services.factory;
    const p = await factory.access.authenticate(ctx.bearer, "importDevices");
    const batchId = new URL(req.url).searchParams.get("batchId");
    if (!batchId || !isUuid(batchId)) throw badRequest("batchId query parameter must be a UUID");
    const type = req.headers.get("content-type") ?? "";
    if (!/^multipart\/form-data\b/i.test(type)) {
      throw badRequest("Content-Type must be multipart/form-data with a file field");
    }
    // Scope and batch state before the upload is read (checks before costs).
    const batch = await factory.registration.importBatch(p, batchId);
    // Read under the limit as it streams in: an oversized upload stops at 4 MiB + envelope.
    const bytes = await readLimited(req, CSV_LIMIT + MULTIPART_OVERHEAD);
    let file: FormDataEntryValue | null;
    try {
      file = (await new Request(req.url, {
        method: "POST",
        headers: { "content-type": type },
        body: bytes,
      })
        .formData()).get("file");
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
    return json(await factory.registration.importCsv(p, batch, text));
  },
  doc: {
    tags: ["factory"],
    summary: "Import devices from CSV",
    security: [auth],
    parameters: [{
      name: "batchId",
      in: "query",
      required: true,
      schema: { type: "string", format: "uuid" },
    }],
    requestBody: {
      required: true,
      content: {
        "multipart/form-data": {
          schema: {
            type: "object",
            required: ["file"],
            properties: {
              file: {
                type: "string",
                format: "binary",
                description: "CSV: serial, sku, hwRevision",
              },
            },
          },
        },
      },
    },
    responses: {
      200: { description: "`{ok, idempotent, errors:[{row, serial, error}]}`" },
      ...errors({
        400: "Missing batchId, not multipart, no file, bad header",
        403: "Not a supervisor, or batch outside the scope",
        404: "Batch not found",
        409: "Batch closed",
        413: "CSV over 4 MiB or over 50000 rows",
      }),
    },
  },
};

/** GET /internal/factory/nfc-files/{credentialId}/download (write; rate limited). */
export const downloadNfcFile: RawRoute = {
  method: "GET",
  path: `${PREFIX}/nfc-files/{credentialId}/download`,
  async handle(_req, ctx) {
    const p = await ctx.services.factory.access.authenticate(ctx.bearer, "downloadNfcFile");
    const { file, fileName } = await ctx.services.factory.downloads.download(
      p,
      ctx.params.credentialId,
    );
    return new Response(JSON.stringify(file, null, 2), {
      headers: {
        "content-type": "application/json",
        "content-disposition": attachment(fileName),
        "cache-control": "no-store",
      },
    });
  },
  doc: {
    tags: ["factory"],
    summary: "Download a signed .nfc.json file",
    security: [auth],
    parameters: [{
      name: "credentialId",
      in: "path",
      required: true,
      schema: { type: "string", format: "uuid" },
    }],
    responses: {
      200: { description: "The `{serial}.nfc.json` file", content: { "application/json": {} } },
      ...errors({
        400: "credentialId is not a UUID",
        403: "Auditor, repeat download not approved, or outside the scope",
        404: "Credential missing or revoked",
        429: "Download rate limit; see Retry-After",
      }),
    },
  },
};

/** A non-negative integer body field, or undefined when absent; 400 otherwise. */
function optionalCount(body: Record<string, unknown>, name: string): number | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw badRequest(`${name} must be a non-negative integer`);
  }
  return value;
}

/**
 * POST /internal/factory/nfc-files:download-zip (supervisor; rate limited), body
 * `{batchId, offset?, limit?}`: the files in scope, at most MAX_ZIP_FILES per ZIP.
 */
export const downloadZip: RawRoute = {
  method: "POST",
  path: `${PREFIX}/nfc-files:download-zip`,
  async handle(req, ctx) {
    const p = await ctx.services.factory.access.authenticate(ctx.bearer, "downloadZip");
    const body = await readJson(req) as Record<string, unknown>;
    if (
      typeof body !== "object" || body === null || typeof body.batchId !== "string" ||
      !isUuid(body.batchId)
    ) {
      throw badRequest("batchId must be a UUID");
    }
    const page = { offset: optionalCount(body, "offset"), limit: optionalCount(body, "limit") };
    const { zip, fileName } = await ctx.services.factory.downloads.downloadZip(
      p,
      body.batchId,
      page,
    );
    return new Response(zip, {
      headers: {
        "content-type": "application/zip",
        "content-disposition": attachment(fileName),
        "cache-control": "no-store",
      },
    });
  },
  doc: {
    tags: ["factory"],
    summary: "Download every NFC file of a batch as a ZIP",
    security: [auth],
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["batchId"],
            properties: {
              batchId: { type: "string", format: "uuid" },
              offset: {
                type: "integer",
                minimum: 0,
                description: "Files to skip, in serial order (default 0)",
              },
              limit: {
                type: "integer",
                minimum: 1,
                maximum: MAX_ZIP_FILES,
                description: "Files in this ZIP; needed when the batch has more than the maximum",
              },
            },
          },
        },
      },
    },
    responses: {
      200: { description: "ZIP of `{serial}.nfc.json` files", content: { "application/zip": {} } },
      ...errors({
        400: "batchId missing or not a UUID, or a bad offset or limit",
        403: "Not a supervisor, or batch outside the scope",
        404: "Batch not found or without NFC files",
        413: `More than ${MAX_ZIP_FILES} files and no limit`,
        429: "Download rate limit; see Retry-After",
      }),
    },
  },
};

/** In match order; the colon paths are distinct from every `{param}` sibling. */
export const factoryRawRoutes: RawRoute[] = [importDevices, downloadZip, downloadNfcFile];
