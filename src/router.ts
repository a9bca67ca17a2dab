/**
 * The whole tRPC router. REST paths come from each procedure's OpenAPI meta; typed clients use
 * the same procedures at `/trpc` through the exported `AppRouter` type.
 */
import { router } from "./trpc/init.ts";
import { APP_SURFACE, SDK_SURFACE, type Surface } from "./trpc/surfaces.ts";
import { accountsRouter } from "./accounts/router.ts";
import { versionedMe } from "./accounts/versioned_me.ts";
import { patsRouter } from "./pats/router.ts";
import { billingRouter } from "./billing/router.ts";
import { oauthRouter } from "./oauth/router.ts";
import { factoryRouter } from "./factory/router.ts";
import { bindingRouter } from "./binding/router.ts";
import { devicesRouter } from "./devices/router.ts";
import { pushesRouter } from "./pushes/router.ts";
import { contentRouter } from "./content/router.ts";
import { targetlessProcedures } from "./targetless/router.ts";

/** The procedures of a versioned surface; each is added once and mounted on both prefixes. */
function versioned(surface: Surface) {
  return router({ me: versionedMe(surface), ...targetlessProcedures(surface) });
}

export const appRouter = router({
  accounts: accountsRouter,
  pats: patsRouter,
  billing: billingRouter,
  oauth: oauthRouter,
  factory: factoryRouter,
  // Before any `/api/devices/{id}/…` router: `bind/code` must not be read as a device id.
  binding: bindingRouter,
  devices: devicesRouter,
  pushes: pushesRouter,
  content: contentRouter,
  app: versioned(APP_SURFACE),
  sdk: versioned(SDK_SURFACE),
});

export type AppRouter = typeof appRouter;
