/**
 * Shared zod pieces of request inputs: one rule per kind of parameter, so every endpoint that
 * takes a resource id refuses a malformed one the same way (400 `<name>: must be a UUID`) and
 * documents it as `format: uuid`. Validated after authentication, before any lookup.
 */
import { z } from "zod";
import { isUuid } from "./ids.ts";

/** A resource id (path, query or body): any UUID, in any letter case. */
export const uuidParam = z.string().refine(isUuid, "must be a UUID").meta({ format: "uuid" });
