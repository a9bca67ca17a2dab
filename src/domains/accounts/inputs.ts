/** Input rules shared by the account procedures (SPEC 4.1, 8). */
import { z } from "zod";

export const emailInput = z.email("must be a valid email address").max(254);
export const usernameInput = z.string().trim().regex(
  /^[A-Za-z0-9_.-]{3,32}$/,
  "must be 3-32 letters, digits, '_', '.' or '-'",
);
/** SPEC 8: at least 8 characters; capped so hashing cost stays bounded. */
/** Characters are code points: zod's min() counts UTF-16 units, so 4 emoji would pass as 8. */
/** The refine is invisible to the document, so the limit is stated there too (JSON Schema counts */
/** code points as well). */
export const passwordInput = z.string().max(1024)
  .refine((s) => [...s].length >= 8, "must be at least 8 characters")
  .meta({ minLength: 8 });

/** Where a request came from, for the session row. */
export function clientOf(ctx: { userAgent: string; ip: string }) {
  return { userAgent: ctx.userAgent, ip: ctx.ip };
}
