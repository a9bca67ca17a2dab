/**
 * POST /internal/factory/firmware (supervisor), multipart: fields `version`, `models`, `skus`
 * (comma-separated), `notes`, and the `file`. The role is checked before the body is read; the
 * body is read under its limit; the fields' scope is checked before the file is hashed or stored.
 */
import { z } from "zod";
import { AppError, badRequest } from "../../errors.ts";
import { readLimited } from "../../infra/http/body.ts";
import { defineRawRoute, json } from "../../infra/http/raw.ts";
import { factoryAuth } from "./auth.ts";
import { FIRMWARE_MAX_BYTES } from "./firmware_service.ts";
import { firmwareBuildSchema } from "./firmware_views.ts";
import { FACTORY_ERRORS, FACTORY_PREFIX } from "./raw_docs.ts";

const MULTIPART_OVERHEAD = 64 * 1024;

function list(value: FormDataEntryValue | null): string[] {
  if (typeof value !== "string") return [];
  return value.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
}

export const uploadFirmware = defineRawRoute({
  method: "POST",
  path: `${FACTORY_PREFIX}/firmware`,
  operationId: "factory-uploadFirmware",
  summary: "Upload a firmware build",
  tags: ["factory"],
  auth: factoryAuth("uploadFirmware"),
  body: {
    kind: "stream",
    contentType: "multipart/form-data",
    docSchema: z.object({
      version: z.string().meta({ description: "As the firmware reports it (`FW-Version`)" }),
      models: z.string().optional().meta({ description: "Comma-separated models it fits" }),
      skus: z.string().optional().meta({ description: "Comma-separated SKUs it fits" }),
      notes: z.string().optional(),
      file: z.string().meta({ format: "binary", description: "The build, at most 16 MiB" }),
    }),
    example: { version: "1.6.3", models: "og,og_gen2", skus: "SKU-A", file: "<binary>" },
  },
  responses: {
    201: {
      description: "The build, stored and audited",
      content: { "application/json": firmwareBuildSchema },
    },
    ...FACTORY_ERRORS({
      400: "Not multipart, no file, empty file, bad version, no model or SKU",
      403: "Not a supervisor, or a SKU or model outside the scope",
      409: "That version already exists",
      413: "File over 16 MiB",
    }),
  },
  async handle({ req, ctx, auth }) {
    const type = req.headers.get("content-type") ?? "";
    if (!/^multipart\/form-data\b/i.test(type)) {
      throw badRequest("Content-Type must be multipart/form-data with a file field");
    }
    const bytes = await readLimited(req, FIRMWARE_MAX_BYTES + MULTIPART_OVERHEAD);
    let form: FormData;
    try {
      form = await new Request(req.url, {
        method: "POST",
        headers: { "content-type": type },
        body: bytes,
      }).formData();
    } catch {
      throw badRequest("Malformed multipart body");
    }
    const file = form.get("file");
    if (!(file instanceof File)) throw badRequest("Multipart field file is required");
    if (file.size > FIRMWARE_MAX_BYTES) {
      throw new AppError("payload_too_large", `Firmware is over the ${FIRMWARE_MAX_BYTES} bytes`);
    }
    const version = form.get("version");
    const notes = form.get("notes");
    const input = {
      version: typeof version === "string" ? version.trim() : "",
      models: list(form.get("models")),
      skus: list(form.get("skus")),
      notes: typeof notes === "string" ? notes : undefined,
    };
    const bytesOf = new Uint8Array(await file.arrayBuffer());
    return json(await ctx.services.factory.firmware.upload(auth, input, bytesOf), 201);
  },
});
