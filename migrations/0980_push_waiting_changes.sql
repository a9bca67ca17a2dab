-- Whether a device has a push waiting (QUEUE, or PREPARE not failed) is cached per device for the
-- display's unchanged poll (src/domains/pushes/service.ts `hasWaiting`): a push's arrival, its
-- departure and each change of its status or render failure are announced with its device's tag.
CREATE TRIGGER pushes_device_arrived AFTER INSERT OR DELETE ON pushes
  FOR EACH ROW EXECUTE FUNCTION dds_notify_change('device', 'device_id');
CREATE TRIGGER pushes_device_changed AFTER UPDATE ON pushes
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status
    OR OLD.render_failed_at IS DISTINCT FROM NEW.render_failed_at)
  EXECUTE FUNCTION dds_notify_change('device', 'device_id');
