/**
 * The face of a domain (issue 22): one definition in `src/domains/<domain>/mod.ts` says everything the
 * rest of the service reaches of it: its tRPC router, the procedures it adds to the versioned
 * surfaces, its raw routes, its queues with their handlers, and the `build` that makes its
 * service when that is the domain's own affair. `src/domains.ts` lists the faces in match order;
 * the router, the raw routes, the queue list and the job wiring are all derived from that list.
 */
import type { AnyRouter } from "@trpc/server";
import type { Config } from "./config.ts";
import type { RawRoute } from "./infra/http/raw.ts";
import type { JobHandler, QueueDefinition } from "./infra/jobs/types.ts";
import type { Services } from "./services_type.ts";
import type { Surface } from "./infra/trpc/surfaces.ts";

/** One queue of a domain and how a worker process runs it. */
export interface DomainQueue<T> {
  queue: QueueDefinition<T>;
  /** The handler, taken from the built services when a worker starts. */
  handler: (services: Services) => JobHandler<T>;
  /**
   * Jobs of the queue at once in one worker process (default 1); `"pool"` is as many as the
   * render pool has threads (more would only wait in the pool).
   */
  concurrency?: number | "pool";
  /** A cron schedule from the configuration, sending `data` on each tick, once across processes. */
  schedule?: (config: Config) => { cron: string; data: T };
}

/** Declares a queue of a domain: ties the handler's payload type to the queue's. */
export function queueOf<T>(
  queue: QueueDefinition<T>,
  handler: DomainQueue<T>["handler"],
  options: Pick<DomainQueue<T>, "concurrency" | "schedule"> = {},
  // deno-lint-ignore no-explicit-any -- a domain's queues carry different payload types
): DomainQueue<any> {
  return { queue, handler, ...options };
}

/** What a domain may show; every part is optional (a domain may own tables and nothing else). */
export interface DomainDefinition {
  /** The folder's name; the key of its router under `appRouter`. */
  readonly name: string;
  /** Its tRPC router, mounted as `appRouter[name]`. */
  readonly router?: AnyRouter;
  /** Procedures it adds to each versioned surface (`/api/app/v1`, `/api/sdk/v1`). */
  readonly versioned?: (surface: Surface) => Record<string, unknown>;
  /** Its raw routes, in match order. */
  readonly rawRoutes?: readonly RawRoute[];
  // deno-lint-ignore no-explicit-any -- queues of different payload types
  readonly queues?: readonly DomainQueue<any>[];
  /** The prefixes of a user's stored objects, deleted with the account (after its rows). */
  readonly objectKeys?: { userPrefixes(userId: string): string[] };
  /** Makes the domain's service from its dependencies (one object), called by `src/services.ts`. */
  // deno-lint-ignore no-explicit-any -- each domain names its own dependencies
  readonly build?: (deps: any) => unknown;
}

/**
 * A domain's face. `const` keeps the literal name and the router's own type, so `appRouter`'s
 * type (what typed clients use) is derived from the list of faces.
 */
export function defineDomain<const D extends DomainDefinition>(definition: D): D {
  return definition;
}
