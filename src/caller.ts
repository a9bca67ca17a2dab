/**
 * Who is calling, and the one check that says so. The accounts domain implements `Authenticate`;
 * the tRPC middlewares and raw routes only use it, so no route verifies a credential its own way.
 */
import type { AppError } from "./errors.ts";

/** An authenticated caller: a user access token's session, or a PAT acting as its user. */
export type Caller =
  | { kind: "user"; userId: string; sessionId: string; expiresAt: number }
  | { kind: "pat"; userId: string; patId: string };

/** The kinds of user credential (CONTRACT.md "Who may call what"). */
export type CallerKind = Caller["kind"];

export interface RequireOptions {
  /**
   * The error for a well-signed, unexpired user token whose user no longer exists; 401 unless
   * a route says otherwise (SPEC 4.1: DELETE /auth/account answers 404 the second time).
   */
  userGone?: () => AppError;
}

/** The authentication check every user endpoint goes through. */
export interface Authenticate {
  /**
   * The caller behind a bearer credential of one of `kinds`. Missing or bad credentials are 401
   * with no reason (SPEC 5.5); a valid credential of another kind is 403.
   */
  require(bearer: string | null, kinds: readonly CallerKind[], options?: RequireOptions): Promise<
    Caller
  >;
  /** SPEC 5.2: a fresh access token when a user token has under 24 hours left, else null. */
  renewal(caller: Caller): Promise<string | null>;
}
