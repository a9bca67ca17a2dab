/**
 * What the operator's tool (`deno task admin`, src/admin.ts) asks of accounts. It opens the
 * database and nothing else (no secrets, no server), so it cannot build `AccountsService`; this
 * service needs only the database, and the `users` table stays behind the accounts domain.
 */
import type { Db } from "../../schema.ts";
import * as repo from "./repository.ts";

/** An account as the operator names it back: its id and username. */
export interface OperatedAccount {
  id: string;
  username: string;
}

export class AccountOperator {
  constructor(private readonly db: Db) {}

  /** The account an operator names by email or username, case-insensitively, or undefined. */
  async find(identifier: string): Promise<OperatedAccount | undefined> {
    const user = await repo.findUserByIdentifier(this.db, identifier);
    return user && { id: user.id, username: user.username };
  }
}
