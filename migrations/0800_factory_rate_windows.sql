-- The factory download rate limit (FACTORY_DOWNLOADS_PER_MINUTE, SPEC 8), counted in the
-- database so that it holds across every process of the service: one row per principal and
-- fixed window, incremented atomically while under the limit. A principal's older windows are
-- deleted when its next window opens, so the table holds one row per active principal.
CREATE TABLE factory_rate_windows (
  key text NOT NULL,
  window_start timestamptz NOT NULL,
  hits integer NOT NULL,
  PRIMARY KEY (key, window_start)
);
