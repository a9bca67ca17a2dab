-- An owner's explicit reset of a display (POST /api/devices/{id}/reset): the display's next poll
-- answers `reset_firmware: true` once and clears it. Nothing else ever sets it.
ALTER TABLE displays ADD COLUMN reset_requested_at timestamptz;
