-- Displays behind another provider (CONTRACT.md "Displays behind another provider, and image
-- feeds"): a device whose `transport` is `image_feed` or `trmnl_webhook`. Owned by displays (the
-- device's profile is a claimed `displays` row without a MAC). One row per such device: the
-- feed's token as its SHA-256 only, the TRMNL webhook URL sealed (AES-GCM under the service's
-- provider key, never answered back) beside its host, and the last post and failure its health
-- shows.
CREATE TABLE display_providers (
  device_id uuid PRIMARY KEY REFERENCES devices (id) ON DELETE CASCADE,
  provider text NOT NULL,
  feed_token_hash text UNIQUE,
  webhook_sealed text,
  webhook_host text,
  posted_push_id uuid,
  posted_at timestamptz,
  last_error text,
  last_error_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
