-- Stored objects (SPEC 4.5 custom-push uploads, 4.6 render output): one row per object the
-- service hands out or produced. Custom-push uploads start `pending` and become `confirmed` once;
-- a rendered push points at its `image.png` row.

CREATE TABLE files (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  device_id uuid REFERENCES devices (id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('custom_push_source', 'push_render')),
  object_key text NOT NULL UNIQUE,
  content_type text NOT NULL,
  size_bytes bigint,
  status text NOT NULL CHECK (status IN ('pending', 'confirmed')),
  expires_at timestamptz,
  confirmed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX files_user_id_idx ON files (user_id);
CREATE INDEX files_device_id_idx ON files (device_id);
