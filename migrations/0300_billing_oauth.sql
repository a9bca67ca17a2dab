-- Billing webhook exactly-once and identity-provider sign-in state (SPEC 3.5, 4.2, 6).

-- One row per payment-provider event id, written in the same transaction as the event's effect:
-- a duplicate delivery (also a concurrent one) finds the row and changes nothing.
CREATE TABLE payment_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now()
);

-- The CSRF `state` of a redirect sign-in, kept server-side and consumed once (CONTRACT.md).
-- Only the digest of the state is stored; the PKCE verifier and nonce never leave the service.
CREATE TABLE oauth_states (
  state_digest text PRIMARY KEY,
  provider text NOT NULL,
  client text NOT NULL,
  code_verifier text NOT NULL,
  nonce text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_states_expires_at_idx ON oauth_states (expires_at);

-- The provider client id that obtained `provider_refresh_token` (Apple's web service id or the
-- app's bundle id): revocation must name the same client. The display name Apple sends only on
-- first authorization is kept here.
ALTER TABLE oauth_accounts ADD COLUMN provider_client_id text;
ALTER TABLE oauth_accounts ADD COLUMN display_name text;
