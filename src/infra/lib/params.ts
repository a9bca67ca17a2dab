/**
 * Shared zod pieces of request inputs: one rule per kind of parameter, so every endpoint that
 * takes a resource id refuses a malformed one the same way (400 `<name>: must be a UUID`) and
 * documents it as `format: uuid`. Validated after authentication, before any lookup.
 */
import { z } from "zod";
import { isUuid } from "./ids.ts";

/** SPEC 8: 8-128 printable ASCII characters (0x20-0x7e: the space counts). */
export const IDEMPOTENCY_KEY = /^[\x20-\x7e]{8,128}$/;

/** The optional `Idempotency-Key` request header, for `requestHeaders`. */
export const idempotencyKey = z.string().regex(IDEMPOTENCY_KEY).optional().meta({
  param: {
    description:
      "8-128 printable ASCII characters; a repeat with the same key and body is a replay",
  },
});

/** A resource id (path, query or body): any UUID, in any letter case. */
export const uuidParam = z.string().refine(isUuid, "must be a UUID").meta({ format: "uuid" });

/**
 * A JSON boolean in a body: `true` or `false` only. A plain `z.boolean()` input field is coerced
 * by the REST layer (trpc-to-openapi's rule: `"false"` and `"yes"` would both be true).
 */
export const jsonBoolean = z.union([z.literal(true), z.literal(false)]);
