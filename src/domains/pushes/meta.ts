/** OpenAPI meta shared by the push endpoints (SPEC 4.5). */
import { z } from "zod";

export const PUSH_ERRORS = {
  400: "Device id (or push id) is not a UUID",
  401: "Unauthorized",
  403: "Not the owner of the device",
  404: "Device not found, or no push available",
} as const;

/**
 * SPEC 4.5 `format`: png (default), raw2 or raw4; unknown values mean png. A repeated parameter
 * (`?format=raw4&format=png`) may arrive as an array: read as unset, never a 400.
 */
export const formatQuery = z.preprocess(
  (value) => typeof value === "string" ? value : undefined,
  z.string().optional(),
).meta({
  description: "png (default) | raw2 | raw4; unknown values fall back to png",
});
