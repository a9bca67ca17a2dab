/** Device procedures for owners (SPEC 4.5; binding lives in src/domains/binding/). */
import { router } from "../../infra/trpc/init.ts";
import { getDevice } from "./get_device.ts";
import { getHealth } from "./get_health.ts";
import { getNickname } from "./get_nickname.ts";
import { getState } from "./get_state.ts";
import { listDevices } from "./list_devices.ts";
import { sendCommand } from "./send_command.ts";
import { setNickname } from "./set_nickname.ts";
import { unbindDevice } from "./unbind_device.ts";

export const devicesRouter = router({
  listDevices,
  getDevice,
  getState,
  getNickname,
  setNickname,
  getHealth,
  unbindDevice,
  sendCommand,
});
