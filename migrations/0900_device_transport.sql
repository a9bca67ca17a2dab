-- Displays people already own (CONTRACT.md): a device is reached over MQTT (made by the factory,
-- NFC-bound) or polls over HTTP (a TRMNL-protocol display, claimed by code). Owned by devices.
ALTER TABLE devices ADD COLUMN transport text NOT NULL DEFAULT 'mqtt';
