/**
 * The face of a domain (issue 22): one definition in `src/domains/<domain>/mod.ts` says everything
 * the rest of the service reaches of it: its OpenAPI tags, its tRPC router, the procedures it adds
 * to the versioned surfaces, its raw routes, its queues with their handlers, the hooks it answers
 * for other domains, and the `build` that makes its services. `src/domains.ts` lists the faces;
 * the router, the raw routes, the documents' tags, the queue list, the job wiring and the services
 * are all derived from that list. What a face adds to the types (its tables to `DB`, its services
 * to `Services`, its hooks to `Hooks`) it declares in its own folder, and its kinds of user
 * resource beside their checks (`src/infra/access/mod.ts`), so a new domain is its folder plus one
 * line in `src/domains.ts` (and its migrations; docs/architecture.md has the checklist).
 */
import type { AnyRouter } from "@trpc/server";
import type { Config } from "./config.ts";
import type { Db } from "./schema.ts";
import type { Secrets } from "./secrets.ts";
import type { RawRoute } from "./infra/http/raw.ts";
import type { JobHandler, Jobs, QueueDefinition } from "./infra/jobs/types.ts";
import type { ChangeFeed } from "./infra/db/cache/feed.ts";
import type { Log } from "./infra/lib/log.ts";
import type { Model, OfflineTask } from "./infra/ai/model.ts";
import type { Renderer } from "./infra/render/types.ts";
import type { HtmlScreens } from "./infra/html/screens.ts";
import type { ObjectStore } from "./infra/storage/object_store.ts";
import type { Services } from "./services.ts";
import type { Surface } from "./infra/trpc/surfaces.ts";
import type { DeviceMessenger, DeviceOutbox } from "./domains/devices/service.ts";

/** Long-lived infrastructure `createApp` opens and closes; the services only use it. */
export interface Infrastructure {
  jobs: Jobs;
  renderer: Renderer;
  /** HTML screens: the warm Chromium drawing plugin markup, toned by the render pool. */
  screens: HtmlScreens;
  /** Object storage: S3 or the embedded disk store. */
  storage: ObjectStore;
  /** The MQTT gateway, as the devices see it. */
  messenger: DeviceMessenger;
  /** Invalidation of the request path's caches; without it nothing is cached. */
  changes?: ChangeFeed;
  /** Device messages that follow a commit (the transactional outbox). */
  outbox: DeviceOutbox;
  log: Log;
  /** The service's public origin; with PORT=0 it is known only once listening. */
  publicBaseUrl: () => string;
}

/**
 * The places where one domain lets others join in, each declared by the domain that offers it
 * (`declare module "../../face.ts" { interface Hooks { … } }` in its `mod.ts`): events others
 * react to ("a device was unlinked": its pushes go too) and questions others answer ("which
 * panel is this device?"). A domain answers in its face's `hooks`.
 */
// deno-lint-ignore no-empty-interface -- the offering domains' faces extend it
export interface Hooks {}

/** What every build, and every answer to a hook, is given. */
export interface Context extends Required<Infrastructure> {
  config: Config;
  db: Db;
  secrets: Secrets;
  /** The AI model: Claude with ANTHROPIC_API_KEY, else the offline model (the faces' tasks). */
  model: Model;
}

/** What a domain's build is given: the context and the services it named as its needs. */
export interface BuildContext<Need extends keyof Services> extends Context {
  /** The services named in `needs`, built before this domain's. */
  services: Pick<Services, Need>;
  /**
   * The answers every face gives to one of this domain's hooks, in the order of
   * `src/domains.ts`. The list is filled once every service is built: keep it, call it later,
   * never during the build.
   */
  hooks<H extends keyof Hooks>(hook: H): readonly Hooks[H][];
  /** The faces' `objectKeys`, in list order: where each domain keeps a user's stored objects. */
  objectKeys: readonly { userPrefixes(userId: string): string[] }[];
}

/** How a face makes its services: what it needs built first, and the build. */
export interface Build {
  readonly needs: readonly (keyof Services)[];
  // deno-lint-ignore no-explicit-any -- each build names its own needs
  readonly make: (context: BuildContext<any>) => Partial<Services>;
}

/**
 * Declares a domain's build: `needs` names the services it uses (built first; the type lets it
 * reach those and no others), `make` returns its own entries of `Services`.
 */
export function buildWith<const Need extends keyof Services = never>(
  needs: readonly Need[],
  make: (context: BuildContext<Need>) => Partial<Services>,
): Build {
  return { needs, make };
}

/** A face's answers to other domains' hooks, each made from the finished services. */
export type HookAnswers = {
  readonly [H in keyof Hooks]?: (context: Context & { services: Services }) => Hooks[H];
};

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
  /**
   * The OpenAPI tags it declares, each with its one-line description. Any operation may use a
   * declared tag (binding's use devices'); a tag is declared by one face only.
   */
  readonly tags?: Readonly<Record<string, string>>;
  /** Its raw routes, in match order. */
  readonly rawRoutes?: readonly RawRoute[];
  // deno-lint-ignore no-explicit-any -- queues of different payload types
  readonly queues?: readonly DomainQueue<any>[];
  /** The prefixes of a user's stored objects, deleted with the account (after its rows). */
  readonly objectKeys?: { userPrefixes(userId: string): string[] };
  /** The tasks it gives the model: their offline behaviour and, optionally, a Claude model. */
  readonly modelTasks?: (context: Pick<Context, "config" | "renderer">) => Readonly<
    Record<string, { offline: OfflineTask; model?: string }>
  >;
  /** Its answers to other domains' hooks. */
  readonly hooks?: HookAnswers;
  /** Makes its services (`src/build_services.ts` calls it once its needs are built). */
  readonly build?: Build;
}

/**
 * A domain's face. `const` keeps the literal name and the router's own type, so `appRouter`'s
 * type (what typed clients use) is derived from the list of faces.
 */
export function defineDomain<const D extends DomainDefinition>(definition: D): D {
  return definition;
}
