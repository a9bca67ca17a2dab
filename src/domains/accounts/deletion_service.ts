/**
 * Account deletion (SPEC 4.1), with the steps other domains contribute passed in when it is
 * built: `before` runs outside the transaction and aborts on failure (provider revocation,
 * subscription cancellation); `inTransaction` runs in the deleting transaction (devices
 * unlinked, their pushes removed) and may return what to do once it committed; `after` runs
 * after the commit (stored objects), where a failure is only logged.
 */
import type { Selectable } from "kysely";
import type { Db, Trx } from "../../schema.ts";
import { AppError, notFound, unauthorized } from "../../errors.ts";
import type { Log } from "../../infra/lib/log.ts";
import { verifyPassword } from "./passwords.ts";
import { accountKey, type LoginLimiter } from "./login_limiter.ts";
import * as repo from "./repository.ts";
import type { UsersTable } from "./tables.ts";

/** Runs after the deletion committed; failures are logged, the account is gone regardless. */
export type AfterCommit = () => Promise<void>;

export interface DeletionSteps {
  before?: ReadonlyArray<(user: Selectable<UsersTable>) => Promise<void>>;
  inTransaction?: ReadonlyArray<(trx: Trx, userId: string) => Promise<AfterCommit | void>>;
  after?: ReadonlyArray<(userId: string) => Promise<void>>;
}

/** What `AccountDeletion` is built from (one object, like every domain's service). */
export interface AccountDeletionDeps {
  db: Db;
  limiter: LoginLimiter;
  steps: DeletionSteps;
  log: Log;
}

export class AccountDeletion {
  private readonly db: Db;
  private readonly limiter: LoginLimiter;
  private readonly steps: DeletionSteps;
  private readonly log: Log;

  constructor(deps: AccountDeletionDeps) {
    this.db = deps.db;
    this.limiter = deps.limiter;
    this.steps = deps.steps;
    this.log = deps.log;
  }

  /**
   * Deletes an account for good: password check when the user has one, the `before` steps
   * (each may abort with 500), then one transaction that runs the other domains' steps and
   * deletes the user row, cascading to everything the user owns.
   */
  async delete(userId: string, password: string | undefined, ip: string): Promise<void> {
    const user = await repo.findUserById(this.db, userId);
    if (!user) throw notFound("User no longer exists");
    if (user.password_hash) {
      if (password === undefined) throw unauthorized("Password is required");
      const hash = user.password_hash;
      const ok = await this.limiter.guard(
        accountKey(user, ""),
        ip,
        () => verifyPassword(password, hash),
      );
      if (!ok) throw unauthorized("Incorrect password");
    }
    for (const step of this.steps.before ?? []) {
      try {
        await step(user);
      } catch (cause) {
        // SPEC 4.1: a provider failure aborts the deletion with 500 before anything is deleted.
        throw Object.assign(
          new AppError("internal", "Account deletion failed; nothing was deleted"),
          { cause },
        );
      }
    }
    const followUps = await this.db.transaction().execute(async (trx) => {
      if (!(await repo.lockUser(trx, userId))) throw notFound("User no longer exists");
      const after: AfterCommit[] = [];
      for (const step of this.steps.inTransaction ?? []) {
        const followUp = await step(trx, userId);
        if (followUp) after.push(followUp);
      }
      await repo.deleteUser(trx, userId);
      return after;
    });
    const after = [...followUps, ...(this.steps.after ?? []).map((step) => () => step(userId))];
    for (const step of after) {
      await step().catch((cause) =>
        this.log.error("account clean-up failed", { userId, error: String(cause) })
      );
    }
  }
}
