-- Event webhooks (CONTRACT.md "Integrations"): a user's subscriptions, the events that matched
-- one when they happened, one delivery per (subscription, event) with each attempt recorded, the
-- per-user battery threshold, and what was last announced of each device (online, battery low).
CREATE TABLE webhooks (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  url text NOT NULL,
  events text[] NOT NULL,
  secret text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_user_idx ON webhooks (user_id, created_at DESC, id DESC);

CREATE TABLE webhook_events (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The unique pair is what makes a delivery happen once per subscription, whichever process
-- emitted the event.
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending',
  attempts jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);

CREATE TABLE webhook_settings (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  battery_low_threshold integer NOT NULL DEFAULT 20
);

-- What the webhooks last announced of a device; a report that changes it emits an event.
CREATE TABLE webhook_device_states (
  device_id uuid PRIMARY KEY REFERENCES devices (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  online boolean NOT NULL,
  battery_low boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_device_states_online_idx ON webhook_device_states (online) WHERE online;

-- A report checks, per process and cached, whether the device's owner watches devices at all
-- (src/webhooks/service.ts `watchesDevices`): a change of the user's webhooks drops that entry.
CREATE TRIGGER webhooks_changed AFTER INSERT OR UPDATE OR DELETE ON webhooks
  FOR EACH ROW EXECUTE FUNCTION dds_notify_change('user', 'user_id');
