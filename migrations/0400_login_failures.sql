-- Failed password checks (login, account deletion, password change), counted in the database so
-- the limits of CONTRACT.md (LOGIN_FAILURES_PER_IDENTIFIER, LOGIN_FAILURES_PER_IP) hold across
-- processes. One row per check: reserved before the password is hashed, deleted again when the
-- password was right. Rows older than the longest window are pruned.

CREATE TABLE login_failures (
  id uuid PRIMARY KEY,
  -- "user:<id>" when the identifier names an account, else "name:<lower-cased identifier>"
  account_key text NOT NULL,
  ip text NOT NULL,
  failed_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX login_failures_account_idx ON login_failures (account_key, failed_at);
CREATE INDEX login_failures_ip_idx ON login_failures (ip, failed_at);
CREATE INDEX login_failures_failed_at_idx ON login_failures (failed_at);
