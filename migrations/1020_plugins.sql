-- Plugins (issue 36, CONTRACT.md "Screens that keep themselves current"): a user's screens drawn
-- from Liquid markup and live data. `merge_variables` is the data the markup sees: what the
-- webhook inbox last stored, or the last good answer of the polling URLs (`data_updated_at`);
-- a failed poll keeps it and records why (`data_error`). The inbox's credential is
-- `webhook_uuid` (random, 122 bits); its hourly allowance is counted on the row, under the row
-- lock that also serialises the merges, so concurrent posts neither lose data nor overrun it.
CREATE TABLE plugins (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  strategy text NOT NULL CHECK (strategy IN ('static', 'webhook', 'polling')),
  markup jsonb NOT NULL,
  static_data jsonb NOT NULL DEFAULT '{}',
  polling jsonb,
  refresh_minutes integer NOT NULL DEFAULT 15,
  custom_fields jsonb NOT NULL DEFAULT '{}',
  -- An imported recipe's `custom_fields` definitions, kept whole so its export gives them back.
  custom_field_definitions jsonb NOT NULL DEFAULT '[]',
  webhook_uuid uuid UNIQUE,
  merge_variables jsonb NOT NULL DEFAULT '{}',
  data_updated_at timestamptz,
  data_error text,
  -- When a render last claimed the polling URLs' fetch (one fetch per refresh interval, across
  -- processes: the claim is an UPDATE only one caller wins).
  data_polled_at timestamptz,
  data_failed_at timestamptz,
  inbox_window_start timestamptz,
  inbox_window_count integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX plugins_user_idx ON plugins (user_id, created_at DESC, id DESC);
