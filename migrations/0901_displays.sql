-- Displays people already own (CONTRACT.md, TRMNL's pull protocol). One row per key a display was
-- given: `pending` until its claim code is claimed (then `claimed`, tied to a device row through
-- the devices domain), `replaced` once a re-pair of the same MAC was claimed. Only the key's
-- SHA-256 is kept for good; the key itself only while pending (a second setup answers it again).
CREATE TABLE displays (
  id uuid PRIMARY KEY,
  mac text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  api_key text,
  friendly_id text,
  code_expires_at timestamptz,
  status text NOT NULL,
  device_id uuid,
  model text,
  refresh_rate integer NOT NULL DEFAULT 900,
  created_at timestamptz NOT NULL DEFAULT now(),
  claimed_at timestamptz
);
CREATE UNIQUE INDEX displays_pending_code_idx ON displays (friendly_id) WHERE status = 'pending';
CREATE UNIQUE INDEX displays_pending_mac_idx ON displays (mac) WHERE status = 'pending';
CREATE INDEX displays_mac_idx ON displays (mac);
CREATE INDEX displays_created_idx ON displays (status, created_at);

-- `GET /api/setup` per client address and minute (DISPLAY_SETUPS_PER_MINUTE), in the database so
-- it holds across processes; a key's older windows go when its next one opens.
CREATE TABLE display_rate_windows (
  key text NOT NULL,
  window_start timestamptz NOT NULL,
  hits integer NOT NULL,
  PRIMARY KEY (key, window_start)
);
