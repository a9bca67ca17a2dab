/** OpenAPI meta shared by the content pipeline's endpoints (SPEC 4.6). */
export const CONTENT_ERRORS = {
  401: "Unauthorized",
  404: "Not found, or not the caller's",
} as const;
