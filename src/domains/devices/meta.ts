/** OpenAPI meta shared by the device endpoints (SPEC 4.5). */

/** The errors of every owner endpoint. */
export const OWNER_ERRORS = {
  400: "Device id is not a UUID",
  401: "Unauthorized",
  403: "Not the owner of the device",
  404: "Device not found",
} as const;

export const DEVICE_TAGS = ["devices"];
