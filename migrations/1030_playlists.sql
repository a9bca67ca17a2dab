-- Playlists (issue 37, CONTRACT.md "Screens that keep themselves current"): a user's rotation of
-- plugins and mashups, each item shown for its duration inside its weekdays and time window in
-- the playlist's time zone. `items` is the list as the API takes it (at most 50).
CREATE TABLE playlists (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  time_zone text NOT NULL DEFAULT 'UTC',
  items jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX playlists_user_idx ON playlists (user_id, created_at DESC, id DESC);

-- A device running a playlist and where its rotation is: the item shown (`item_index`, -1 before
-- the first or when no item is due), when it ends (`item_ends_at`: the advance job's time, and
-- the display poll's `refresh_rate` cap), until when the owner's own push holds the screen
-- (`hold_until`), and the plugins the current item draws (a webhook post to one of them draws it
-- again). Advancing locks this row: two workers never advance one device twice.
CREATE TABLE playlist_devices (
  device_id uuid PRIMARY KEY REFERENCES devices (id) ON DELETE CASCADE,
  playlist_id uuid NOT NULL REFERENCES playlists (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  item_index integer NOT NULL DEFAULT -1,
  item_ends_at timestamptz NOT NULL DEFAULT now(),
  hold_until timestamptz,
  plugin_ids uuid[] NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX playlist_devices_playlist_idx ON playlist_devices (playlist_id);
-- The minute's sweep finds devices whose item ended without a job having advanced them.
CREATE INDEX playlist_devices_due_idx ON playlist_devices (item_ends_at);
CREATE INDEX playlist_devices_plugins_idx ON playlist_devices USING gin (plugin_ids);

-- A display's poll caps its `refresh_rate` at its item's end, read from a per-device cache
-- (src/domains/playlists/service.ts): changes are announced with the device's tag.
CREATE TRIGGER playlist_devices_changed AFTER INSERT OR UPDATE OR DELETE ON playlist_devices
  FOR EACH ROW EXECUTE FUNCTION dds_notify_change('device', 'device_id');
