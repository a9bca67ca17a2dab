-- Webhook events are kept 30 days (src/domains/webhooks/sweep.ts prunes older ones, their
-- deliveries with them): the prune walks this index from the oldest.
CREATE INDEX webhook_events_created_idx ON webhook_events (created_at);
