/** OpenAPI meta shared by the plugin endpoints (CONTRACT.md "Screens that keep themselves current"). */

/** Every plugin endpoint but the webhook inbox takes a user token or a PAT. */
export const AUTH_ERRORS = { 401: "Unauthorized" } as const;

/** An endpoint of one plugin: its id is checked, another user's is unknown. */
export const PLUGIN_ERRORS = {
  ...AUTH_ERRORS,
  400: "id is not a UUID",
  404: "Plugin not found",
} as const;
