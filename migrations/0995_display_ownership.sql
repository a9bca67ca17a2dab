-- Display ownership and fair shares (CONTRACT.md, third security review).
-- A pending display's key is no longer kept: each setup answers a new one (the hash alone).
UPDATE displays SET api_key = NULL;
-- A log entry's stored size, so a display's entries are kept within 1 MiB without re-reading them.
ALTER TABLE display_logs ADD COLUMN bytes integer NOT NULL DEFAULT 0;
UPDATE display_logs SET bytes = octet_length(entry::text) + octet_length(message);
-- Unused enrollment tokens are counted per user (at most 20).
CREATE INDEX displays_enrollment_user_idx ON displays (enrolled_by, code_expires_at)
  WHERE status = 'enrollment';
-- What a pending display reported at its last poll, and when: its device starts from it when the
-- display is claimed (issue 34: the claim answered online:false for a display polling all along).
ALTER TABLE displays ADD COLUMN reported jsonb;
ALTER TABLE displays ADD COLUMN seen_at timestamptz;
