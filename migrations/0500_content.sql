-- Content pipeline (SPEC 4.6, CONTRACT.md "Content pipeline"): raw items (a note and up to 10
-- pictures), the pushes the analyze agent made from them, and the analyze runs themselves.

-- Raw-item pictures are uploaded with the same tickets as custom pushes (src/files/uploads.ts).
ALTER TABLE files DROP CONSTRAINT IF EXISTS files_purpose_check;
ALTER TABLE files ADD CONSTRAINT files_purpose_check
  CHECK (purpose IN ('custom_push_source', 'push_render', 'raw_item_attachment'));

CREATE TABLE raw_items (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  title text,
  text text,
  status text NOT NULL CHECK (status IN ('uploading', 'processing', 'summarized', 'failed')),
  summary_content jsonb,
  error text,
  summary_attempts integer NOT NULL DEFAULT 0,
  confirmed_at timestamptz,
  summarized_at timestamptz,
  failed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Pages newest first, keyset on (created_at, id); the status filter rides on the same index.
CREATE INDEX raw_items_user_page_idx ON raw_items (user_id, created_at DESC, id DESC);
-- The schedule: users with material summarised since their last run.
CREATE INDEX raw_items_summarized_idx ON raw_items (summarized_at) WHERE status = 'summarized';

-- The pictures of an item, in upload order; each is a `files` row of the item's owner.
CREATE TABLE raw_item_attachments (
  raw_item_id uuid NOT NULL REFERENCES raw_items (id) ON DELETE CASCADE,
  position integer NOT NULL,
  file_id uuid NOT NULL UNIQUE REFERENCES files (id) ON DELETE CASCADE,
  filename text,
  -- What the vision stage measured or saw (kept for the agent's read_note_content).
  description text,
  PRIMARY KEY (raw_item_id, position)
);

CREATE TABLE analyze_runs (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  reason text NOT NULL CHECK (reason IN ('MANUAL', 'SCHEDULED')),
  status text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  model text,
  steps jsonb NOT NULL DEFAULT '[]'::jsonb,
  error text,
  attempts integer NOT NULL DEFAULT 0,
  input_tokens integer NOT NULL DEFAULT 0,
  output_tokens integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz
);
CREATE INDEX analyze_runs_user_page_idx ON analyze_runs (user_id, created_at DESC, id DESC);

-- A push the agent made, and the items it shows. SPEC 4.6 / issue 10: an item is pushed to a
-- device at most once, whatever runs concurrently: the unique key decides.
CREATE TABLE content_pushes (
  push_id uuid NOT NULL REFERENCES pushes (id) ON DELETE CASCADE,
  raw_item_id uuid NOT NULL REFERENCES raw_items (id) ON DELETE CASCADE,
  device_id uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  run_id uuid REFERENCES analyze_runs (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (push_id, raw_item_id),
  UNIQUE (raw_item_id, device_id)
);
CREATE INDEX content_pushes_user_idx ON content_pushes (user_id, created_at);
CREATE INDEX content_pushes_run_idx ON content_pushes (run_id);
