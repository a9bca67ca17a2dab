/**
 * Claim codes are guessed like passwords (CONTRACT.md "Display ownership and fair shares"): at
 * most 10 wrong codes per user per 15 minutes and 100 per source per minute (an IPv6 source is
 * its /64). Each attempt is counted before any code is looked up, and the count is taken back
 * when the code was right, so concurrent guesses can never look up more codes than the limits
 * allow; over either limit the answer is 429 with `Retry-After`.
 */
import type { Db } from "../../schema.ts";
import { AppError } from "../../errors.ts";
import { hitRateWindow, releaseRateWindow } from "../../infra/db/rate_windows.ts";
import { sourceOf } from "../../infra/lib/source.ts";

/** Wrong codes one user may try in `USER_WINDOW_SECONDS`. */
export const WRONG_CODES_PER_USER = 10;
export const USER_WINDOW_SECONDS = 15 * 60;
/** Wrong codes one source may try in `SOURCE_WINDOW_SECONDS`, whatever the accounts. */
export const WRONG_CODES_PER_SOURCE = 100;
export const SOURCE_WINDOW_SECONDS = 60;

const TABLE = "display_rate_windows";

/** One attempt's reservation: `release` takes it back (the code was right). */
export interface ClaimAttempt {
  release(): Promise<void>;
}

/** Counts an attempt of `userId` from `ip`; 429 when either is over its limit. */
export async function reserveClaimAttempt(
  db: Db,
  userId: string,
  ip: string,
): Promise<ClaimAttempt> {
  const user = `claim-user:${userId}`;
  const source = `claim-src:${sourceOf(ip)}`;
  let wait = await hitRateWindow(db, TABLE, user, WRONG_CODES_PER_USER, USER_WINDOW_SECONDS);
  if (wait === null) {
    wait = await hitRateWindow(db, TABLE, source, WRONG_CODES_PER_SOURCE, SOURCE_WINDOW_SECONDS);
    if (wait !== null) await releaseRateWindow(db, TABLE, user, USER_WINDOW_SECONDS);
  }
  if (wait !== null) {
    throw new AppError("rate_limited", `Too many wrong claim codes; retry in ${wait} seconds`, {
      "Retry-After": String(wait),
    });
  }
  return {
    async release() {
      await releaseRateWindow(db, TABLE, user, USER_WINDOW_SECONDS);
      await releaseRateWindow(db, TABLE, source, SOURCE_WINDOW_SECONDS);
    },
  };
}
