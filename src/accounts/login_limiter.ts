/**
 * Limits on failed password checks (CONTRACT.md LOGIN_FAILURES_PER_IDENTIFIER / _PER_IP): login,
 * account deletion and password change. Counted in the database so the limits hold across
 * processes. A check is reserved (counted) before the password is hashed and forgotten when the
 * password was right, so N concurrent wrong guesses can never hash more than the limit allows:
 * over it, the answer is 429 with `Retry-After` and no hashing at all.
 */
import type { Db } from "../schema.ts";
import { AppError } from "../errors.ts";
import { uuidv7 } from "../lib/ids.ts";
import * as repo from "./repository.ts";

export interface LoginLimits {
  perIdentifier: number;
  identifierWindowSeconds: number;
  perIp: number;
  ipWindowSeconds: number;
}

/** How often one process deletes rows no window reaches any more. */
const PRUNE_EVERY_MS = 60_000;

/** The key of the account a login identifier names, or of the identifier itself. */
export function accountKey(user: { id: string } | undefined, identifier: string): string {
  // Emails and usernames are unique case-insensitively (docs/decisions.md), and login looks
  // them up lower-cased and trimmed: an unknown identifier is keyed the same way.
  return user ? `user:${user.id}` : `name:${identifier.trim().toLowerCase()}`;
}

export class LoginLimiter {
  #lastPrune = 0;

  constructor(private readonly db: Db, private readonly limits: LoginLimits) {}

  /**
   * Runs `verify` (the password hashing) unless the account key or the IP is over its limit
   * (429 then, `verify` never runs). A false result stays counted as a failure.
   */
  async guard(key: string, ip: string, verify: () => Promise<boolean>): Promise<boolean> {
    await this.prune();
    const reservation = await this.reserve(key, ip);
    const ok = await verify();
    if (ok) await repo.deleteLoginFailure(this.db, reservation);
    return ok;
  }

  private async reserve(key: string, ip: string): Promise<string> {
    // A lock-free look first: once a key is over its limit (the state a flood of guesses keeps
    // it in), refusals take no lock and hold no pooled connection waiting for one.
    this.refuseIfOver(await this.waitOf(this.db, key, ip));
    return await this.db.transaction().execute(async (trx) => {
      // The authoritative count, under the locks, with the reservation in the same transaction.
      await repo.lockLoginKeys(trx, key, ip);
      this.refuseIfOver(await this.waitOf(trx, key, ip));
      const id = uuidv7();
      await repo.insertLoginFailure(trx, { id, account_key: key, ip });
      return id;
    });
  }

  /** Seconds until both the key and the IP are under their limits; null when they are. */
  private async waitOf(db: Db, key: string, ip: string): Promise<number | null> {
    const { perIdentifier, identifierWindowSeconds, perIp, ipWindowSeconds } = this.limits;
    const waits = [
      await repo.secondsUntilUnderLimit(
        db,
        "account_key",
        key,
        perIdentifier,
        identifierWindowSeconds,
      ),
      await repo.secondsUntilUnderLimit(db, "ip", ip, perIp, ipWindowSeconds),
    ].filter((w): w is number => w !== null);
    return waits.length ? Math.max(...waits) : null;
  }

  private refuseIfOver(wait: number | null) {
    if (wait === null) return;
    throw new AppError(
      "rate_limited",
      `Too many failed password attempts; retry in ${wait} seconds`,
      { "Retry-After": String(wait) },
    );
  }

  private async prune() {
    if (Date.now() - this.#lastPrune < PRUNE_EVERY_MS) return;
    this.#lastPrune = Date.now();
    const { identifierWindowSeconds, ipWindowSeconds } = this.limits;
    await repo.pruneLoginFailures(this.db, Math.max(identifierWindowSeconds, ipWindowSeconds));
  }
}
