-- Issue 12: the SHA-256 (hex) of each rendered file of a push, so the push URL object can carry
-- the digest of the file it points to (a device skips redrawing what it already shows), and a
-- render identical to one already stored for the device reuses its files instead of storing
-- them again. NULL for pushes rendered before this migration.
ALTER TABLE pushes
  ADD COLUMN png_sha256 text,
  ADD COLUMN raw2_sha256 text,
  ADD COLUMN raw4_sha256 text;
-- Identical renders of one device.
CREATE INDEX pushes_device_render_idx ON pushes (device_id, png_sha256)
  WHERE png_sha256 IS NOT NULL;
