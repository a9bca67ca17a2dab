/**
 * A display polling TRMNL's protocol (`GET /api/display`, transport `http`): it asks for what it
 * shows at each poll, so it is told nothing, and it takes no commands (`cmd` is 409).
 */
import type { DeviceTransport } from "../devices/transport.ts";

export const httpTransport: DeviceTransport = {
  name: "http",
  notify: () => Promise.resolve(),
};
