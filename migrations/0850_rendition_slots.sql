-- The user's concurrent rendition limit (SPEC 8, TARGETLESS_MAX_CONCURRENT_RENDITIONS) holds for
-- the initial renditions of new contents too (issue 25 finding 4). An initial rendition that finds
-- the limit full is stored `waiting`: shown as `preparing`, but no job renders it yet. When a
-- rendition of the user finishes, the oldest waiting ones take the free slots and their jobs are
-- sent. Renditions stored before this migration hold a slot (their jobs were sent).
ALTER TABLE renditions ADD COLUMN waiting boolean NOT NULL DEFAULT false;
CREATE INDEX renditions_waiting_idx ON renditions (user_id, id) WHERE waiting;
