/** OpenAPI meta shared by the button endpoints (issue 24). */
import { OWNER_ERRORS } from "../devices/meta.ts";

/** Owner only; a device that is not a polling display has no button action. */
export const BUTTON_ERRORS = {
  ...OWNER_ERRORS,
  404: "Device not found, or not a display that polls",
};
