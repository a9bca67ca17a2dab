-- Fair webhook deliveries (issue 33 item 3, CONTRACT.md "Display ownership and fair shares"):
-- each webhook (target) carries its delivery lease and its health. `busy_until` is the lease of
-- the one delivery in flight to it (a worker that dies lets it lapse); the user's rows locked
-- together count the user's leases, so a user holds at most a share of the delivery slots.
-- `consecutive_failures` slows a failing target (`next_attempt_at`) and then disables it.
ALTER TABLE webhooks ADD COLUMN busy_until timestamptz;
ALTER TABLE webhooks ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0;
ALTER TABLE webhooks ADD COLUMN next_attempt_at timestamptz;
ALTER TABLE webhooks ADD COLUMN disabled_at timestamptz;
ALTER TABLE webhooks ADD COLUMN disabled_reason text;

-- A lease or a failure count changes on every delivery: only what `watchesDevices` caches (the
-- subscriptions, and whether the webhook is disabled) drops the user's cached entries.
DROP TRIGGER webhooks_changed ON webhooks;
CREATE TRIGGER webhooks_changed AFTER INSERT OR DELETE ON webhooks
  FOR EACH ROW EXECUTE FUNCTION dds_notify_change('user', 'user_id');
CREATE TRIGGER webhooks_subscription_changed AFTER UPDATE ON webhooks
  FOR EACH ROW
  WHEN (OLD.events IS DISTINCT FROM NEW.events
    OR OLD.disabled_at IS DISTINCT FROM NEW.disabled_at
    OR OLD.user_id IS DISTINCT FROM NEW.user_id)
  EXECUTE FUNCTION dds_notify_change('user', 'user_id');

-- Pending deliveries of a webhook (a target's backlog, drained oldest first by its lease holder).
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (webhook_id, created_at, id)
  WHERE status = 'pending';
