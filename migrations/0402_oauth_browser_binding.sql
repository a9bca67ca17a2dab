-- CONTRACT.md "Identity providers": a sign-in state is bound to the browser that started it.
-- `start` gives the browser a random binding in an HttpOnly cookie; the row keeps only its
-- SHA-256, and a callback consumes the row only when the cookie's digest matches.
-- States started before this migration have no binding and could never complete: drop them
-- (they live ten minutes).
DELETE FROM oauth_states;
ALTER TABLE oauth_states ADD COLUMN browser_digest text NOT NULL;
