-- Enrollment tokens (CONTRACT.md "Displays people already own"): an `api_key` made in advance by
-- a user, for a client configured with a key by hand (Kindle, Raspberry Pi). Its row has status
-- `enrollment` and no MAC until the first poll ties it to one; unused, it expires at
-- `code_expires_at` (24 h).
ALTER TABLE displays ALTER COLUMN mac DROP NOT NULL;
ALTER TABLE displays ADD COLUMN enrolled_by uuid;
ALTER TABLE displays ADD COLUMN name text;
