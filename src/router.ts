/**
 * The whole tRPC router, derived from the list of domains (`src/domains.ts`): each domain's
 * router under its name, in list order, then the two versioned surfaces, which mount the
 * procedures every domain adds to them. REST paths come from each procedure's OpenAPI meta;
 * typed clients use the same procedures at `/trpc` through the exported `AppRouter` type,
 * which is derived from the same list.
 */
import { router } from "./infra/trpc/init.ts";
import { APP_SURFACE, SDK_SURFACE, type Surface } from "./infra/trpc/surfaces.ts";
import { DOMAINS } from "./domains.ts";

type Domain = (typeof DOMAINS)[number];

/** `{accounts: accountsRouter, …}`: the domains that have a router, keyed by name. */
type DomainRouters = {
  [D in Extract<Domain, { router: unknown }> as D["name"]]: D["router"];
};

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends
  (i: infer I) => void ? I : never;

/** Every domain's procedures of a versioned surface, merged. */
type VersionedProcedures = UnionToIntersection<
  ReturnType<Extract<Domain, { versioned: unknown }>["versioned"]>
>;

/** The procedures of a versioned surface; each is added once and mounted on both prefixes. */
function versioned(surface: Surface) {
  const procedures = DOMAINS.map((domain) =>
    "versioned" in domain ? domain.versioned(surface) : {}
  );
  return router(Object.assign({}, ...procedures) as VersionedProcedures);
}

const domainRouters = Object.fromEntries(
  DOMAINS.flatMap((domain) => "router" in domain ? [[domain.name, domain.router]] : []),
) as DomainRouters;

export const appRouter = router({
  ...domainRouters,
  app: versioned(APP_SURFACE),
  sdk: versioned(SDK_SURFACE),
});

export type AppRouter = typeof appRouter;
