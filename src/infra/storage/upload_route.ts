/**
 * `POST /storage/upload`: the embedded store's browser-style upload with a signed POST policy
 * (CONTRACT.md storage; SPEC 4.5: fields first, `file` last, no Authorization header: the
 * signature is the authorization). Issue 16: the body is read as a stream, the fields are
 * checked before a byte of the file is read (a forged upload costs a few kilobytes), the file
 * goes to disk as it arrives under the policy's size limit, a ticket stores one object once,
 * and the stored content type is the one sniffed from the bytes.
 */
import { z } from "zod";
import { AppError, type ErrorCode } from "../../errors.ts";
import { defineRawRoute, publicRoute } from "../http/raw.ts";
import { DiskObjectStore, type DiskUpload, UPLOAD_PATH } from "./disk.ts";
import { boundaryOf, MultipartReader } from "./multipart.ts";
import { decodePolicy, type UploadPolicy, verify } from "./signing.ts";
import { SNIFF_BYTES, sniffImageType } from "./sniff.ts";

/** The largest upload any policy of this service allows (SPEC 8: 10 MB images). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** Every byte before the file part: preamble, part headers, field values. */
export const FIELDS_BUDGET = 64 * 1024;
/** Fields before the file (the ticket has four; S3-style clients may add a few). */
export const MAX_FIELDS = 16;
/** One field's value (a policy is a few hundred bytes). */
export const MAX_FIELD_BYTES = 8 * 1024;
/** Multipart framing around the file: closing delimiter, a short epilogue. */
const TRAILER_SLACK = 1024;

/** The policy fields, by lowercase name (S3 matches field names case-insensitively). */
const POLICY_FIELDS = new Set(["key", "content-type", "policy", "signature"]);

/** Storage errors are never cached: a 403 today may be a 204 with a fresh ticket. */
export function storageError(code: ErrorCode, message: string): AppError {
  return new AppError(code, message, { "cache-control": "no-store" });
}

const denied = (message: string) => storageError("forbidden", message);
const malformed = (message: string) => storageError("invalid_request", message);

/** With S3 configured the service serves no object URLs. */
export function diskStore(store: unknown): DiskObjectStore {
  if (!(store instanceof DiskObjectStore)) throw storageError("not_found", "Not found");
  return store;
}

/** Reads the fields up to the `file` part; its headers are read, none of its bytes. */
async function readFields(form: MultipartReader): Promise<Map<string, string>> {
  const fields = new Map<string, string>();
  let count = 0;
  for (;;) {
    const part = await form.next();
    if (!part) throw malformed("The form has no file field");
    if (part.name === "file") return fields;
    if (++count > MAX_FIELDS) throw malformed(`The form has more than ${MAX_FIELDS} fields`);
    const name = part.name.toLowerCase();
    const value = await form.text(part.name, MAX_FIELD_BYTES);
    if (!POLICY_FIELDS.has(name)) continue;
    if (fields.has(name)) throw malformed(`Form field ${part.name} is given twice`);
    fields.set(name, value);
  }
}

/** Signature, then expiry, key and content type: all before the file is read. */
function checkPolicy(store: DiskObjectStore, fields: Map<string, string>): UploadPolicy {
  const policyField = fields.get("policy");
  const signature = fields.get("signature");
  if (!policyField || !signature) throw denied("Upload policy or signature is missing");
  if (!verify(store.secret, policyField, signature)) throw denied("Upload signature is invalid");
  const policy = decodePolicy(policyField);
  if (!policy) throw denied("Upload policy is malformed");
  if (policy.expires * 1000 < Date.now()) throw denied("Upload policy has expired");
  if (fields.get("key") !== policy.key) throw denied("Key does not match the upload policy");
  const declared = fields.get("content-type") ?? "";
  if (!declared.toLowerCase().startsWith(policy.contentTypePrefix)) {
    throw denied(`Content type ${declared || "(none)"} is not allowed by the upload policy`);
  }
  return policy;
}

/** Streams the file part into `upload`; the sniffed content type, or a refusal. */
async function receiveFile(form: MultipartReader, upload: DiskUpload, policy: UploadPolicy) {
  const head = new Uint8Array(SNIFF_BYTES);
  let size = 0;
  for await (const chunk of form.chunks()) {
    if (size < SNIFF_BYTES) head.set(chunk.subarray(0, SNIFF_BYTES - size), size);
    size += chunk.length;
    if (size > policy.maxBytes) {
      throw storageError("payload_too_large", `File is over the ${policy.maxBytes} byte limit`);
    }
    await upload.write(chunk);
  }
  if (!(await form.ends())) throw malformed("The file field must come last");
  if (size === 0) throw malformed("The file is empty");
  // The stored type is what the bytes are, whatever was declared (issue 16).
  const sniffed = sniffImageType(head.subarray(0, Math.min(size, SNIFF_BYTES)));
  if (!sniffed || !sniffed.startsWith(policy.contentTypePrefix)) {
    throw denied(`File content is not ${policy.contentTypePrefix}* the upload policy allows`);
  }
  return sniffed;
}

/** POST /storage/upload: multipart form, policy fields first, `file` last (204 on success). */
export const storageUpload = defineRawRoute({
  method: "POST",
  path: UPLOAD_PATH,
  operationId: "storage-upload",
  summary: "Upload to the embedded object store with a signed POST policy",
  description: "Fields (key, Content-Type, policy, signature) first, `file` last. A ticket " +
    "stores one object once; the stored content type is the one sniffed from the bytes.",
  tags: ["storage"],
  // SPEC 5.9: no Authorization header; the policy's signature is the authorization, checked
  // in the handler when the file part starts, before a byte of it is read.
  auth: publicRoute,
  body: {
    kind: "stream",
    contentType: "multipart/form-data",
    docSchema: z.object({
      key: z.string(),
      "Content-Type": z.string(),
      policy: z.string(),
      signature: z.string(),
      file: z.string().meta({ format: "binary" }),
    }),
    // The fields come from an upload ticket (custom push, raw item, content asset).
    example: {
      key:
        "uploads/0193a0c0-1b2c-7d3e-8f4a-5b6c7d8e9f01/custom/0193a0c1-3a5b-7c6d-8e9f-0a1b2c3d4e5f",
      "Content-Type": "image/jpeg",
      policy: "eyJrZXkiOiJ1cGxvYWRzLzAxOTNhMGMwIiwiY29udGVudFR5cGVQcmVmaXgiOiJpbWFnZS8ifQ",
      signature: "-q6gJ8h7cA09qP2MYxPzW0NqnT3WdtpJEq1I0TUzx-w",
      file: "photo.jpg",
    },
  },
  responses: {
    204: { description: "Stored" },
    400: { description: "Not a multipart form, fields over their limits, file not last" },
    403: {
      description: "Signature, expiry, key or content type violates the policy, the file " +
        "is not an image the policy allows, or the ticket was already used",
    },
    413: { description: "File over the policy's size limit (nothing is stored)" },
  },
  async handle({ req, ctx }) {
    const store = diskStore(ctx.services.storage);
    const boundary = boundaryOf(req.headers.get("content-type") ?? "");
    if (!boundary) throw malformed("Upload must be multipart/form-data with a boundary");
    const declared = Number(req.headers.get("content-length") ?? "0") || 0;
    if (declared > MAX_UPLOAD_BYTES + FIELDS_BUDGET + TRAILER_SLACK) {
      throw storageError("payload_too_large", `Upload is over ${MAX_UPLOAD_BYTES} bytes`);
    }
    if (!req.body) throw malformed("Upload has no body");
    const form = new MultipartReader(req.body, boundary, FIELDS_BUDGET);
    try {
      const policy = checkPolicy(store, await readFields(form));
      // A declared length that cannot fit the limit is refused before anything is claimed.
      if (declared > form.position + policy.maxBytes + boundary.length + TRAILER_SLACK) {
        throw storageError("payload_too_large", `File is over the ${policy.maxBytes} byte limit`);
      }
      const upload = await store.beginUpload(policy.key, policy.expires);
      if (!upload) throw denied("Upload ticket has already been used");
      try {
        await upload.commit(await receiveFile(form, upload, policy));
      } catch (error) {
        await upload.abort();
        throw error;
      }
    } finally {
      await form.cancel();
    }
    return new Response(null, { status: 204, headers: { "cache-control": "no-store" } });
  },
});
