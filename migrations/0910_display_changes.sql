-- A display's row is cached by its key (the unchanged `GET /api/display` poll reads no database,
-- src/db/cache/): its changes are announced like a device's.
CREATE TRIGGER displays_changed AFTER UPDATE OR DELETE ON displays
  FOR EACH ROW EXECUTE FUNCTION dds_notify_change('display', 'id');
