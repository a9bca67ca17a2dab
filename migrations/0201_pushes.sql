-- Pushes (SPEC 2.9, 3.1): an 800x480 picture prepared for one device. The render job reads
-- `source_key` (custom image) or `template`/`params` and writes three files under
-- `render_prefix`; `file_id` is the `image.png` record.

CREATE TABLE pushes (
  id uuid PRIMARY KEY,
  device_id uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  title text NOT NULL DEFAULT '',
  summary text NOT NULL DEFAULT '',
  status text NOT NULL
    CHECK (status IN ('PREPARE', 'QUEUE', 'PUBLISHED', 'CONFIRMED', 'EXPIRED')),
  priority integer NOT NULL DEFAULT 0,
  template text NOT NULL,
  params jsonb NOT NULL DEFAULT '{}'::jsonb,
  source_key text,
  render_prefix text,
  file_id uuid REFERENCES files (id) ON DELETE SET NULL,
  render_attempts integer NOT NULL DEFAULT 0,
  render_error text,
  rendered_at timestamptz,
  published_at timestamptz,
  confirmed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- History pages: newest first, keyset on (created_at, id).
CREATE INDEX pushes_device_history_idx ON pushes (device_id, created_at DESC, id DESC);
-- Promotion: the highest-priority rendered push of a device.
CREATE INDEX pushes_device_queue_idx ON pushes (device_id, priority DESC, created_at, id)
  WHERE status = 'QUEUE';
CREATE INDEX pushes_user_id_idx ON pushes (user_id);
