-- Issue 13: the request path caches sessions, personal access tokens, device ownership, pushes
-- and /auth/me in each process. Every change to a row they are built from is announced on the
-- `dds_cache` channel by these triggers, in the transaction that makes it: PostgreSQL delivers
-- the notification at commit (never for a rollback) to every process listening, which drops
-- what it cached from that row (src/db/change_feed.ts). Cascaded deletes fire them too.
CREATE FUNCTION dds_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('dds_cache', TG_ARGV[0] || ':' || coalesce(to_jsonb(OLD) ->> TG_ARGV[1], ''));
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM pg_notify('dds_cache', TG_ARGV[0] || ':' || coalesce(to_jsonb(NEW) ->> TG_ARGV[1], ''));
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER users_changed AFTER UPDATE OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION dds_notify_change('user', 'id');
CREATE TRIGGER sessions_changed AFTER UPDATE OR DELETE ON sessions
  FOR EACH ROW EXECUTE FUNCTION dds_notify_change('session', 'id');
CREATE TRIGGER personal_access_tokens_changed AFTER UPDATE OR DELETE ON personal_access_tokens
  FOR EACH ROW EXECUTE FUNCTION dds_notify_change('pat', 'id');
-- /auth/me shows the user's provider links and subscription.
CREATE TRIGGER oauth_accounts_changed AFTER INSERT OR UPDATE OR DELETE ON oauth_accounts
  FOR EACH ROW EXECUTE FUNCTION dds_notify_change('user', 'user_id');
CREATE TRIGGER subscriptions_changed AFTER INSERT OR UPDATE OR DELETE ON subscriptions
  FOR EACH ROW EXECUTE FUNCTION dds_notify_change('user', 'user_id');
-- Only the owner and the latest push of a device are cached: state reports stay silent.
CREATE TRIGGER devices_changed AFTER UPDATE ON devices
  FOR EACH ROW
  WHEN (OLD.owner_id IS DISTINCT FROM NEW.owner_id
    OR OLD.latest_push_id IS DISTINCT FROM NEW.latest_push_id)
  EXECUTE FUNCTION dds_notify_change('device', 'id');
CREATE TRIGGER devices_deleted AFTER DELETE ON devices
  FOR EACH ROW EXECUTE FUNCTION dds_notify_change('device', 'id');
CREATE TRIGGER pushes_changed AFTER UPDATE OR DELETE ON pushes
  FOR EACH ROW EXECUTE FUNCTION dds_notify_change('push', 'id');
