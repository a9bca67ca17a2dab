-- Targetless presentations (SPEC 2.10-2.13, 3.2-3.4, 4.7; CONTRACT.md "Targetless contents").
-- A content is what a user asked for (mode, intent, assets, output profile); a presentation is
-- what was made of it: a Scene and its PNG renditions, or, for `manual` (display-bound), a push
-- the presentation mirrors.

-- Image assets are uploaded through the same tickets as custom pushes, with their own purpose.
-- MERGE NOTE: another branch may widen this list too; the final list is the union.
ALTER TABLE files DROP CONSTRAINT files_purpose_check;
ALTER TABLE files ADD CONSTRAINT files_purpose_check
  CHECK (purpose IN ('custom_push_source', 'push_render', 'raw_item_attachment', 'targetless_asset'));

CREATE TABLE targetless_contents (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  mode text NOT NULL CHECK (mode IN ('auto', 'hardcode', 'manual')),
  intent text NOT NULL DEFAULT '',
  title text NOT NULL DEFAULT '',
  -- The resolved output profile (SPEC 2.10); null for `manual`.
  output json,
  -- `manual` only: the caller's device.
  display_id uuid,
  -- The assets as accepted, image assets with their `fileId`.
  assets json NOT NULL,
  state text NOT NULL CHECK (state IN ('uploading', 'processing', 'ready', 'failed')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX targetless_contents_user_idx ON targetless_contents (user_id, id DESC);

CREATE TABLE presentations (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- `generated` (targetless: Scene and renditions) or `display` (mirrors a push).
  kind text NOT NULL CHECK (kind IN ('generated', 'display')),
  mode text NOT NULL CHECK (mode IN ('auto', 'hardcode', 'manual')),
  display_id uuid,
  -- A display presentation's push; an unbind deletes the push and the presentation reads
  -- `expired` from then on.
  push_id uuid REFERENCES pushes (id) ON DELETE SET NULL,
  -- Generated: preparing | ready | failed. Display: `failed` once its render failed for good,
  -- else `preparing` and the state is read from the push.
  state text NOT NULL CHECK (state IN ('preparing', 'ready', 'failed')),
  output json,
  scene json,
  failure json,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX presentations_user_idx ON presentations (user_id, kind, id DESC);
CREATE INDEX presentations_push_idx ON presentations (push_id) WHERE push_id IS NOT NULL;

-- SPEC 2.13 `contentIds` / CONTRACT.md `presentationIds`.
CREATE TABLE presentation_contents (
  presentation_id uuid NOT NULL REFERENCES presentations (id) ON DELETE CASCADE,
  content_id uuid NOT NULL REFERENCES targetless_contents (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (presentation_id, content_id)
);
CREATE INDEX presentation_contents_content_idx ON presentation_contents (content_id);

CREATE TABLE renditions (
  id uuid PRIMARY KEY,
  presentation_id uuid NOT NULL REFERENCES presentations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  format text NOT NULL CHECK (format IN ('png')),
  width integer NOT NULL CHECK (width BETWEEN 1 AND 8192),
  height integer NOT NULL CHECK (height BETWEEN 1 AND 8192),
  color_mode text NOT NULL CHECK (color_mode IN ('color', 'grayscale', 'monochrome')),
  -- SPEC 3.2: only the initial renditions (from `output.formats`) decide the presentation state.
  initial boolean NOT NULL,
  state text NOT NULL CHECK (state IN ('preparing', 'ready', 'failed')),
  object_key text,
  failure json,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- SPEC 4.7: the deduplication key.
  UNIQUE (presentation_id, format, width, height, color_mode)
);
-- SPEC 8: concurrent preparing renditions per user are counted here.
CREATE INDEX renditions_preparing_idx ON renditions (user_id) WHERE state = 'preparing';

-- SPEC 8 Idempotency-Key, per user and per operation (`contents`, `renditions`).
CREATE TABLE targetless_idempotency_keys (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  scope text NOT NULL CHECK (scope IN ('contents', 'renditions')),
  key text NOT NULL,
  fingerprint text NOT NULL,
  resource_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, scope, key)
);
