/**
 * Limits on failed password checks (CONTRACT.md LOGIN_FAILURES_PER_IDENTIFIER / _PER_IP): login,
 * account deletion and password change. Counted in the database so the limits hold across
 * processes. A check is reserved (counted) before the password is hashed and forgotten when the
 * password was right, so N concurrent wrong guesses can never hash more than the limits allow:
 * over one, the answer is 429 with `Retry-After` and no hashing at all.
 *
 * Three counts (issue 25 finding 7, docs/security.md):
 * - per account and source: `perIdentifier` failures in `identifierWindowSeconds`. One source's
 *   failures never refuse the account's owner at another source.
 * - per source: `perIp` failures in `ipWindowSeconds`, whatever the accounts.
 * - per account from every source: past `ACCOUNT_CEILING_FACTOR` × `perIdentifier` failures in the
 *   account's window, a source that has failed for the account in it is refused; a source that
 *   has not (the owner, usually) still gets its check. A guesser spread over many sources gets one
 *   guess per source and window instead of `perIdentifier`; nobody can lock the owner out.
 *
 * A source is an IPv4 address or the /64 prefix of an IPv6 one (`sourceOf`): one IPv6 host
 * commonly holds a whole /64, so counting single IPv6 addresses would give it 2^64 allowances.
 */
import type { Db } from "../../schema.ts";
import { AppError } from "../../errors.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import * as repo from "./repository.ts";
import { sourceOf } from "../../infra/lib/source.ts";

export { sourceOf };

export interface LoginLimits {
  /** Failures of one account from one source in `identifierWindowSeconds`. */
  perIdentifier: number;
  identifierWindowSeconds: number;
  /** Failures from one source in `ipWindowSeconds`, whatever the accounts. */
  perIp: number;
  ipWindowSeconds: number;
}

/** The account's ceiling over every source, as a multiple of the per-source limit. */
export const ACCOUNT_CEILING_FACTOR = 10;

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
   * Runs `verify` (the password hashing) unless the account key or the client's source is over
   * a limit (429 then, `verify` never runs). A false result stays counted as a failure.
   */
  async guard(key: string, ip: string, verify: () => Promise<boolean>): Promise<boolean> {
    await this.prune();
    const reservation = await this.reserve(key, sourceOf(ip));
    const ok = await verify();
    if (ok) await repo.deleteLoginFailure(this.db, reservation);
    return ok;
  }

  private async reserve(key: string, source: string): Promise<string> {
    // A lock-free look first: once a key is over its limit (the state a flood of guesses keeps
    // it in), refusals take no lock and hold no pooled connection waiting for one.
    this.refuseIfOver(await this.waitOf(this.db, key, source));
    return await this.db.transaction().execute(async (trx) => {
      // The authoritative count, under the locks, with the reservation in the same transaction.
      await repo.lockLoginKeys(trx, key, source);
      this.refuseIfOver(await this.waitOf(trx, key, source));
      const id = uuidv7();
      await repo.insertLoginFailure(trx, { id, account_key: key, ip: source });
      return id;
    });
  }

  /** Seconds until the account and the source are under every limit; null when they are. */
  private async waitOf(db: Db, key: string, source: string): Promise<number | null> {
    const { perIdentifier, identifierWindowSeconds, perIp, ipWindowSeconds } = this.limits;
    const until = (filter: repo.FailureFilter, limit: number, window: number) =>
      repo.secondsUntilUnderLimit(db, filter, limit, window);
    const pair = { account_key: key, ip: source };
    const waits = [
      await until(pair, perIdentifier, identifierWindowSeconds),
      await until({ ip: source }, perIp, ipWindowSeconds),
    ];
    const ceiling = await until(
      { account_key: key },
      perIdentifier * ACCOUNT_CEILING_FACTOR,
      identifierWindowSeconds,
    );
    if (ceiling !== null) {
      // Over the ceiling, a source that has failed for the account waits until either the
      // ceiling or its own failures leave the window.
      const own = await until(pair, 1, identifierWindowSeconds);
      if (own !== null) waits.push(Math.min(ceiling, own));
    }
    const over = waits.filter((w): w is number => w !== null);
    return over.length ? Math.max(...over) : null;
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
