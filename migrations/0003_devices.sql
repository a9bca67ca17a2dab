-- Devices (SPEC 2.7, 2.14): registered by the factory, bound to a user by NFC, reporting over MQTT.
-- One table for both views; the factory adds batches and credentials in its own migrations.

CREATE TABLE devices (
  id uuid PRIMARY KEY,
  hw_id text NOT NULL UNIQUE,
  thing_name text NOT NULL UNIQUE,
  serial text,
  batch_id uuid,
  sku text,
  hw_revision text,
  lifecycle_status text NOT NULL DEFAULT 'registered',
  nickname text,
  firmware text,
  battery integer,
  online boolean NOT NULL DEFAULT false,
  last_status text,
  last_seen_at timestamptz,
  owner_id uuid REFERENCES users (id) ON DELETE SET NULL,
  bound_at timestamptz,
  claim_code text,
  state jsonb,
  state_updated_at timestamptz,
  tags text[] NOT NULL DEFAULT ARRAY['undeclared'],
  latest_push_id uuid,
  latest_push_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (batch_id, serial)
);
CREATE INDEX devices_owner_id_idx ON devices (owner_id);
