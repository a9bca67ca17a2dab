-- A display's button action is read at every poll: it is cached per device
-- (src/domains/buttons/service.ts), so its changes are announced with the device's tag.
CREATE TRIGGER display_buttons_changed AFTER INSERT OR UPDATE OR DELETE ON display_buttons
  FOR EACH ROW EXECUTE FUNCTION dds_notify_change('device', 'device_id');
