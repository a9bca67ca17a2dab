/** OpenAPI meta shared by the webhook endpoints (CONTRACT.md "Integrations"). */

/** Every webhook endpoint takes a user token or a PAT. */
export const AUTH_ERRORS = { 401: "Unauthorized" } as const;
