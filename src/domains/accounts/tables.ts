/** Table types of the accounts domain (migrations/0001_accounts.sql). */
import type { ColumnType } from "kysely";

type CreatedAt = ColumnType<Date, Date | undefined, never>;
type Timestamp = ColumnType<Date, Date | undefined, Date>;

export interface UsersTable {
  id: string;
  email: string;
  username: string;
  password_hash: string | null;
  disabled_at: Date | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  user_agent: string;
  ip: string;
  created_at: CreatedAt;
  last_used_at: Timestamp;
}

export interface RefreshTokensTable {
  token_digest: string;
  session_id: string;
  user_id: string;
  created_at: CreatedAt;
  expires_at: Date;
  used_at: Date | null;
}

/** migrations/0400: one failed (or in-flight) password check. */
export interface LoginFailuresTable {
  id: string;
  account_key: string;
  ip: string;
  failed_at: ColumnType<Date, Date | undefined, never>;
}

export interface AccountTables {
  users: UsersTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  login_failures: LoginFailuresTable;
}

declare module "../../schema.ts" {
  interface DB extends AccountTables {}
}
