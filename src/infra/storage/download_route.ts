/**
 * `GET /storage/objects/{key}`: the embedded store's signed download (SPEC 4.5 push URLs, 15
 * minutes). Issue 16 and issue 8: the key is checked before anything touches the disk; the
 * object is streamed with `nosniff`, and only picture types are ever shown inline, so nothing
 * stored can run as a page of the service's origin.
 */
import { z } from "zod";
import { defineRawRoute, publicRoute } from "../http/raw.ts";
import { OBJECTS_PATH } from "./disk.ts";
import { isSafeKey } from "./keys.ts";
import { downloadMessage, verify } from "./signing.ts";
import { INLINE_TYPES } from "./sniff.ts";
import { diskStore, storageError } from "./upload_route.ts";

/** Longest a client may keep a downloaded object: the URL's own lifetime, at most a minute. */
const MAX_CACHE_SECONDS = 60;

/**
 * No scripts, plugins, frames or fetches even if a browser renders the object as a document
 * (the policy raw.githubusercontent.com serves user content with).
 */
const SANDBOX = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/** Headers that keep a stored object an inert file: type, disposition, caching. */
export function objectHeaders(key: string, contentType: string, size: number, expires: number) {
  const inline = INLINE_TYPES.has(contentType);
  const remaining = Math.max(0, expires - Math.floor(Date.now() / 1000));
  return {
    // Anything but a picture type (say a legacy `image/svg+xml`) is served as opaque bytes.
    "content-type": inline ? contentType : "application/octet-stream",
    "content-length": String(size),
    // The key is [A-Za-z0-9._-/] only (isSafeKey), so its last segment is a safe filename.
    "content-disposition": `${inline ? "inline" : "attachment"}; filename="${
      key.slice(key.lastIndexOf("/") + 1)
    }"`,
    "x-content-type-options": "nosniff",
    "content-security-policy": SANDBOX,
    "cache-control": `private, max-age=${Math.min(MAX_CACHE_SECONDS, remaining)}`,
  };
}

/** GET /storage/objects/{key}: the object, when `expires` and `signature` are valid. */
export const storageDownload = defineRawRoute({
  method: "GET",
  path: `${OBJECTS_PATH}/{key}`,
  operationId: "storage-download",
  summary: "Download from the embedded object store with a signed URL",
  tags: ["storage"],
  // The signature is the authorization (SPEC 5.9); checked below, with the key first.
  auth: publicRoute,
  // Optional here: a missing or malformed one is the same 403 as a wrong one.
  query: z.object({
    expires: z.string().optional().meta({ param: { description: "Unix seconds, as signed" } }),
    signature: z.string().optional().meta({ param: { description: "As in the signed URL" } }),
  }),
  params: z.object({
    key: z.string().meta({
      param: { description: "The object key as one path segment (`/` written `%2F`)" },
    }),
  }),
  responses: {
    200: {
      description: "The object's bytes (picture types inline, anything else an attachment)",
      // What `objectHeaders` sends: a picture type as stored, anything else as opaque bytes.
      content: Object.fromEntries(
        [...INLINE_TYPES, "application/octet-stream"]
          .map((type) => [type, z.string().meta({ format: "binary" })]),
      ),
      headers: z.object({
        "Content-Disposition": z.string().meta({
          header: { description: "`inline` for picture types, else `attachment`; the filename" },
        }),
      }),
    },
    403: { description: "Invalid or expired signature" },
    404: { description: "No such object, or a key no store can hold" },
  },
  async handle({ ctx, query, params }) {
    const store = diskStore(ctx.services.storage);
    const { key } = params;
    // A key no store could hold (traversal, NUL, backslash, too long) was never signed.
    if (!isSafeKey(key)) throw storageError("not_found", "Object not found");
    const expiresText = query.expires ?? "";
    const expires = Number(expiresText);
    if (
      // One spelling per URL: canonical decimal seconds, as signed.
      !/^[1-9]\d{0,11}$/.test(expiresText) ||
      !verify(store.secret, downloadMessage(key, expires), query.signature ?? "")
    ) {
      throw storageError("forbidden", "Signature is invalid");
    }
    if (expires * 1000 < Date.now()) throw storageError("forbidden", "URL has expired");
    const object = await store.open(key);
    if (!object) throw storageError("not_found", "Object not found");
    return new Response(object.body, {
      headers: objectHeaders(key, object.contentType, object.size, expires),
    });
  },
});
