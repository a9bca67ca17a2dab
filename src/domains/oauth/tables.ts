/** Table types of identity-provider sign-in (migrations/0300_billing_oauth.sql, 0402). */
import type { ColumnType } from "kysely";

export interface OauthStatesTable {
  state_digest: string;
  provider: string;
  client: string;
  code_verifier: string;
  nonce: string;
  /** SHA-256 of the browser binding held in the start cookie (CONTRACT.md). */
  browser_digest: string;
  expires_at: Date;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface OauthTables {
  oauth_states: OauthStatesTable;
}
