-- Personal access tokens (SPEC 2.6, 4.3): only the SHA-256 digest of the token is stored.

CREATE TABLE personal_access_tokens (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  token_digest text NOT NULL UNIQUE,
  prefix text NOT NULL,
  last_four text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  expires_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX personal_access_tokens_user_id_idx ON personal_access_tokens (user_id);
