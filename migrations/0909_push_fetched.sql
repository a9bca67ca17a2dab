-- When a display (TRMNL's pull protocol) first downloaded a push's picture through its signed
-- `image_url` (CONTRACT.md: the download is recorded as the display fetching that push).
ALTER TABLE pushes ADD COLUMN fetched_at timestamptz;
