/** Table types of personal access tokens (migrations/0002_personal_access_tokens.sql). */
import type { ColumnType } from "kysely";

export interface PersonalAccessTokensTable {
  id: string;
  user_id: string;
  name: string;
  token_digest: string;
  prefix: string;
  last_four: string;
  created_at: ColumnType<Date, Date | undefined, never>;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

export interface PatTables {
  personal_access_tokens: PersonalAccessTokensTable;
}

declare module "../../schema.ts" {
  interface DB extends PatTables {}
}
