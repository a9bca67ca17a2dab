-- A display's own log entries (`POST /api/log`, TRMNL's firmware), read by its owner with
-- `GET /api/devices/{id}/logs`. The last 1,000 of a device are kept.
CREATE TABLE display_logs (
  id uuid PRIMARY KEY,
  device_id uuid NOT NULL,
  level text NOT NULL,
  message text NOT NULL,
  entry jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX display_logs_device_idx ON display_logs (device_id, created_at DESC, id DESC);
