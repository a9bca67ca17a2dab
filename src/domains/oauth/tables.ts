/** Table types of identity-provider sign-in (migrations/0300_billing_oauth.sql, 0402). */
import type { ColumnType, Generated } from "kysely";

/** A user's link to a provider subject; sign-in writes it, `GET /auth/me` lists it. */
export interface OauthAccountsTable {
  id: string;
  user_id: string;
  provider: string;
  provider_user_id: string;
  email: Generated<string>;
  provider_refresh_token: string | null;
  /** Added by migrations/0300: the client that obtained the refresh token, Apple's name. */
  provider_client_id: string | null;
  display_name: string | null;
  linked_at: ColumnType<Date, Date | undefined, never>;
}

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
  oauth_accounts: OauthAccountsTable;
  oauth_states: OauthStatesTable;
}

declare module "../../schema.ts" {
  interface DB extends OauthTables {}
}
