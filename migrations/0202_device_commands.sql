-- Device commands (SPEC 2.8): what `POST /api/devices/{id}/cmd` delivered over MQTT.

CREATE TABLE device_commands (
  id uuid PRIMARY KEY,
  device_id uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  user_id uuid REFERENCES users (id) ON DELETE SET NULL,
  thing_name text NOT NULL,
  kind text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX device_commands_device_id_idx ON device_commands (device_id, created_at DESC);
