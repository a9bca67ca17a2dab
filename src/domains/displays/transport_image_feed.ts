/**
 * A display fetching one image URL (transport `image_feed`: ESPHome's `online_image`, Home
 * Assistant, a kiosk): like a display's poll, its fetch publishes what waits, so it is told
 * nothing, and it takes no commands (`cmd` is 409).
 */
import type { DeviceTransport } from "../devices/transport.ts";

export const imageFeedTransport: DeviceTransport = {
  name: "image_feed",
  notify: () => Promise.resolve(),
};
