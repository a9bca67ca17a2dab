-- Displays that send no key (CONTRACT.md "Screens that keep themselves current"): TRMNL's Raspberry
-- Pi client pointed at a custom server sends only its MAC. Once such a display is claimed, its
-- key-less polls are served only when its owner turns this on (`PUT .../display-profile
-- {"keyless": true}`); otherwise they get a screen saying how to give the client its key.
-- A key-less poll finds the claimed display of its MAC through displays_mac_idx.
ALTER TABLE displays ADD COLUMN keyless boolean NOT NULL DEFAULT false;
