-- Issue 25: when a push's render failed for good (a source the render refuses, or the last retry
-- of a transient failure). The render job does not render such a push again, and the push
-- history shows why (`error`). NULL while a render may still succeed.
ALTER TABLE pushes ADD COLUMN render_failed_at timestamptz;
