-- Firmware updates (issue 24): the factory's registry of builds and their rollouts, and what each
-- device was last offered. A build's file is in object storage under `object_key`; a rollout
-- assigns one build to a batch, a SKU or a model and is `active` or `paused`.
CREATE TABLE firmware_builds (
  id uuid PRIMARY KEY,
  version text NOT NULL UNIQUE,
  models text[] NOT NULL,
  skus text[] NOT NULL,
  notes text,
  object_key text NOT NULL,
  sha256 text NOT NULL,
  size_bytes integer NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE firmware_rollouts (
  id uuid PRIMARY KEY,
  build_id uuid NOT NULL REFERENCES firmware_builds (id),
  target_kind text NOT NULL,
  target text NOT NULL,
  status text NOT NULL DEFAULT 'active',
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (build_id, target_kind, target)
);
CREATE INDEX firmware_rollouts_target_idx ON firmware_rollouts (target_kind, target)
  WHERE status = 'active';

-- The device side (src/firmware): an owner's hold, and the last offer (at most one a day).
CREATE TABLE device_firmware (
  device_id uuid PRIMARY KEY REFERENCES devices (id) ON DELETE CASCADE,
  held boolean NOT NULL DEFAULT false,
  offered_at timestamptz,
  offered_build_id uuid
);

-- Button actions of pull displays (src/buttons): what a press does, per device.
CREATE TABLE display_buttons (
  device_id uuid PRIMARY KEY REFERENCES devices (id) ON DELETE CASCADE,
  action text NOT NULL DEFAULT 'none'
);
