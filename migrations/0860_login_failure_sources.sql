-- Failed password checks are counted per account and source (issue 25 finding 7), so the count of
-- one account from one source needs both columns. `ip` holds the source: the IPv4 address, or
-- the /64 prefix of an IPv6 one (src/accounts/login_limiter.ts).
CREATE INDEX login_failures_account_source_idx ON login_failures (account_key, ip, failed_at);
