/**
 * The embedded object store's own HTTP face (CONTRACT.md storage): the browser-style multipart
 * upload of a signed POST policy, and signed GET downloads. Neither takes an Authorization
 * header (SPEC 5.9): the signature is the authorization.
 */
import { AppError } from "../errors.ts";
import type { RawRoute } from "../http/raw.ts";
import { readLimited } from "../http/body.ts";
import { DiskObjectStore, OBJECTS_PATH, UPLOAD_PATH } from "./disk.ts";
import { decodePolicy, downloadMessage, verify } from "./signing.ts";

/** Multipart framing around the file: generous, the policy's size limit is checked on the file. */
const FORM_OVERHEAD = 64 * 1024;
/** The largest upload any policy of this service allows (SPEC 8: 10 MB images). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

const denied = (message: string) => new AppError("forbidden", message);

function diskStore(store: unknown): DiskObjectStore {
  // With S3 configured the service serves no object URLs.
  if (!(store instanceof DiskObjectStore)) throw new AppError("not_found", "Not found");
  return store;
}

/** POST /storage/upload: multipart form, policy fields first, `file` last (204 on success). */
export const storageUpload: RawRoute = {
  method: "POST",
  path: UPLOAD_PATH,
  async handle(req, ctx) {
    const store = diskStore(ctx.services.storage);
    const type = req.headers.get("content-type") ?? "";
    if (!/^multipart\/form-data\b/i.test(type)) {
      throw new AppError("invalid_request", "Upload must be multipart/form-data");
    }
    const body = await readLimited(req, MAX_UPLOAD_BYTES + FORM_OVERHEAD);
    let form: FormData;
    try {
      form = await new Response(body, { headers: { "content-type": type } }).formData();
    } catch {
      throw new AppError("invalid_request", "Upload is not a valid multipart form");
    }
    const entries = [...form.entries()];
    const last = entries.at(-1);
    if (!last || last[0] !== "file" || typeof last[1] === "string") {
      throw new AppError("invalid_request", "The file field must come last");
    }
    const file = last[1];
    const field = (name: string) => {
      const value = form.get(name);
      return typeof value === "string" ? value : undefined;
    };
    const policyField = field("policy");
    const signature = field("signature");
    if (!policyField || !signature) throw denied("Upload policy or signature is missing");
    if (!verify(store.secret, policyField, signature)) throw denied("Upload signature is invalid");
    const policy = decodePolicy(policyField);
    if (!policy) throw denied("Upload policy is malformed");
    if (policy.expires * 1000 < Date.now()) throw denied("Upload policy has expired");
    if (field("key") !== policy.key) throw denied("Key does not match the upload policy");
    const contentType = field("Content-Type") ?? field("content-type") ?? "";
    if (!contentType.toLowerCase().startsWith(policy.contentTypePrefix)) {
      throw denied(`Content type ${contentType || "(none)"} is not allowed by the upload policy`);
    }
    if (file.size > policy.maxBytes) {
      throw new AppError("payload_too_large", `File is over the ${policy.maxBytes} byte limit`);
    }
    await store.put(policy.key, new Uint8Array(await file.arrayBuffer()), contentType);
    return new Response(null, { status: 204 });
  },
  doc: {
    tags: ["storage"],
    summary: "Upload to the embedded object store with a signed POST policy",
    requestBody: { required: true, content: { "multipart/form-data": { schema: {} } } },
    responses: {
      204: { description: "Stored" },
      400: { description: "Not a multipart form, or the file field is not last" },
      403: { description: "Signature, expiry, key or content type violates the policy" },
      413: { description: "File over the policy's size limit" },
    },
  },
};

/** GET /storage/objects/{key}: the object, when `expires` and `signature` are valid. */
export const storageDownload: RawRoute = {
  method: "GET",
  path: `${OBJECTS_PATH}/{key}`,
  async handle(req, ctx) {
    const store = diskStore(ctx.services.storage);
    const url = new URL(req.url);
    const key = ctx.params.key;
    const expires = Number(url.searchParams.get("expires"));
    const signature = url.searchParams.get("signature") ?? "";
    if (
      !Number.isInteger(expires) || !verify(store.secret, downloadMessage(key, expires), signature)
    ) {
      throw denied("Signature is invalid");
    }
    if (expires * 1000 < Date.now()) throw denied("URL has expired");
    const [info, bytes] = await Promise.all([store.head(key), store.get(key)]);
    if (!info || !bytes) throw new AppError("not_found", "Object not found");
    return new Response(bytes as Uint8Array<ArrayBuffer>, {
      headers: {
        "content-type": info.contentType,
        "content-length": String(bytes.byteLength),
        "cache-control": "private, max-age=60",
      },
    });
  },
  doc: {
    tags: ["storage"],
    summary: "Download from the embedded object store with a signed URL",
    responses: {
      200: { description: "The object's bytes" },
      403: { description: "Invalid or expired signature" },
      404: { description: "No such object" },
    },
  },
};
