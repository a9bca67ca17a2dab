/**
 * The faces of the service: every domain's and one of infrastructure (`storage`, marked below),
 * the one list the composition root loops over. `src/router.ts` mounts their routers,
 * `src/raw_routes.ts` serves their raw routes, `src/queues.ts` creates their queues and a worker
 * registers each queue's handler (`src/app.ts`), `src/build_services.ts` runs their builds (each
 * after what it needs) and hands each hook its answers in this order. The order does not decide
 * which route serves a path (the most specific template wins: `src/route_order_test.ts` holds that
 * no two faces' routes depend on it); it is the order of the documents' operations and of the
 * hooks' answers. A new domain is its folder with a `mod.ts` (`defineDomain`, src/face.ts) and one
 * line here.
 */
import { accounts } from "./domains/accounts/mod.ts";
import { pats } from "./domains/pats/mod.ts";
import { billing } from "./domains/billing/mod.ts";
import { oauth } from "./domains/oauth/mod.ts";
import { files } from "./domains/files/mod.ts";
import { storage } from "./infra/storage/mod.ts";
import { factory } from "./domains/factory/mod.ts";
import { binding } from "./domains/binding/mod.ts";
import { displays } from "./domains/displays/mod.ts";
import { firmware } from "./domains/firmware/mod.ts";
import { buttons } from "./domains/buttons/mod.ts";
import { devices } from "./domains/devices/mod.ts";
import { pushes } from "./domains/pushes/mod.ts";
import { content } from "./domains/content/mod.ts";
import { targetless } from "./domains/targetless/mod.ts";
import { mcp } from "./domains/mcp/mod.ts";
import { webhooks } from "./domains/webhooks/mod.ts";
import { plugins } from "./domains/plugins/mod.ts";
import { playlists } from "./domains/playlists/mod.ts";

export const DOMAINS = [
  accounts,
  pats,
  billing,
  oauth,
  // The one face of infrastructure in the list, not a domain (no rows, no services): the
  // embedded object store's signed routes, here so that their paths keep their place in the
  // documents (the order decides no match). src/domains_test.ts knows it as infrastructure.
  storage,
  factory,
  binding,
  displays,
  firmware,
  buttons,
  devices,
  pushes,
  files,
  content,
  targetless,
  webhooks,
  plugins,
  playlists,
  // An integration surface over the services above (issue 24), owning no tables.
  mcp,
] as const;

/** Every domain's queues, in list order. */
export const DOMAIN_QUEUES = DOMAINS.flatMap((domain) =>
  "queues" in domain ? [...domain.queues] : []
);

/** Every face's OpenAPI tags, in list order (the documents add the infrastructure's). */
export const DOMAIN_TAGS = DOMAINS.flatMap((domain) => "tags" in domain ? [domain.tags] : []);
