-- A display's profile (CONTRACT.md "Displays people already own"): the panel size its polls
-- report (`Width`, `Height` headers) and what its owner set (`PUT .../display-profile`, any of
-- model, width, height, bitDepth, rotation), which wins over the model registry and the headers.
ALTER TABLE displays ADD COLUMN reported_width integer;
ALTER TABLE displays ADD COLUMN reported_height integer;
ALTER TABLE displays ADD COLUMN profile jsonb NOT NULL DEFAULT '{}'::jsonb;
