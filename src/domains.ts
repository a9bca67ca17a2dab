/**
 * The domains of the service, in match order: the one list the composition root loops over.
 * `src/router.ts` mounts their routers (binding before devices: `bind/code` must not be read as
 * a device id), `src/raw_routes.ts` serves their raw routes in this order, `src/queues.ts`
 * creates their queues and a worker registers each queue's handler (`src/app.ts`). A new
 * domain is its folder with a `mod.ts` (`defineDomain`, src/domain.ts) and one line here.
 */
import { accounts } from "./accounts/mod.ts";
import { pats } from "./pats/mod.ts";
import { billing } from "./billing/mod.ts";
import { oauth } from "./oauth/mod.ts";
import { files } from "./files/mod.ts";
import { storage } from "./storage/mod.ts";
import { factory } from "./factory/mod.ts";
import { binding } from "./binding/mod.ts";
import { displays } from "./displays/mod.ts";
import { devices } from "./devices/mod.ts";
import { pushes } from "./pushes/mod.ts";
import { content } from "./content/mod.ts";
import { targetless } from "./targetless/mod.ts";
import { webhooks } from "./webhooks/mod.ts";

export const DOMAINS = [
  accounts,
  pats,
  billing,
  oauth,
  // Infrastructure, not a domain: the embedded object store's signed routes, matched here.
  storage,
  factory,
  binding,
  // Before devices: `claim` must not be read as a device id.
  displays,
  devices,
  pushes,
  files,
  content,
  targetless,
  webhooks,
] as const;

/** Every domain's queues, in list order. */
export const DOMAIN_QUEUES = DOMAINS.flatMap((domain) =>
  "queues" in domain ? [...domain.queues] : []
);
