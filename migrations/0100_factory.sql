-- Factory console (SPEC 2.14, 3.4b, 3.5b, 4.8): batches, NFC credentials, download requests,
-- registration idempotency keys and the audit log. Devices gain their credential state.

CREATE TABLE factory_batches (
  id uuid PRIMARY KEY,
  order_no text NOT NULL UNIQUE,
  sku text NOT NULL,
  hw_revision text,
  planned_quantity integer NOT NULL DEFAULT 0,
  factory_id text,
  status text NOT NULL DEFAULT 'open',
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by text NOT NULL
);

ALTER TABLE devices ADD COLUMN nfc_status text NOT NULL DEFAULT 'pending';
ALTER TABLE devices ADD COLUMN credential_version integer NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN nfc_key_id text;
CREATE INDEX devices_batch_id_idx ON devices (batch_id, created_at, id);

-- One row per issued credential; the proof itself is never stored: it is re-derived from the
-- master key at download time.
CREATE TABLE nfc_credentials (
  id uuid PRIMARY KEY,
  device_id uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  key_id text NOT NULL,
  credential_version integer NOT NULL,
  status text NOT NULL DEFAULT 'generated',
  payload_sha256 text NOT NULL,
  issued_by text NOT NULL,
  issued_at timestamptz NOT NULL,
  download_count integer NOT NULL DEFAULT 0,
  revoked_at timestamptz,
  UNIQUE (device_id, credential_version)
);

CREATE TABLE nfc_download_requests (
  id uuid PRIMARY KEY,
  credential_id uuid NOT NULL REFERENCES nfc_credentials (id) ON DELETE CASCADE,
  requested_by text NOT NULL,
  status text NOT NULL DEFAULT 'pending',
  reason text,
  decided_by text,
  decided_at timestamptz,
  expires_at timestamptz,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- SPEC 8: one pending request per credential, enforced by the database under concurrency.
CREATE UNIQUE INDEX nfc_download_requests_one_pending
  ON nfc_download_requests (credential_id) WHERE status = 'pending';

CREATE TABLE factory_idempotency_keys (
  principal_id text NOT NULL,
  key text NOT NULL,
  fingerprint text NOT NULL,
  device_id uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (principal_id, key)
);

CREATE TABLE factory_audit_logs (
  id uuid PRIMARY KEY,
  action text NOT NULL,
  result text NOT NULL,
  principal_id text,
  principal_name text,
  batch_id uuid,
  device_id uuid,
  detail jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX factory_audit_logs_created_idx ON factory_audit_logs (created_at DESC, id DESC);
