/**
 * The two versioned surfaces (SPEC 4.7, 5.4, 9): one set of procedures, mounted at two prefixes
 * with different credentials. A later procedure is written once as a function of its surface.
 */
import { surfaceProcedures } from "./auth.ts";

export interface Surface {
  name: "app" | "sdk";
  prefix: "/api/app/v1" | "/api/sdk/v1";
  /** The base procedure: user access tokens on `app`, PATs on `sdk`. */
  procedure: typeof surfaceProcedures.app;
}

export const APP_SURFACE: Surface = {
  name: "app",
  prefix: "/api/app/v1",
  procedure: surfaceProcedures.app,
};
export const SDK_SURFACE: Surface = {
  name: "sdk",
  prefix: "/api/sdk/v1",
  procedure: surfaceProcedures.sdk,
};
