/**
 * Displays people already own (CONTRACT.md, TRMNL's pull protocol: ../shared/TRMNL.md), by what
 * a reader looks for: how a display comes to be someone's (`pairing.ts`: setup, claim,
 * enrollment tokens), its polls and pictures (`polls.ts`; those that send no key: `keyless.ts`),
 * the screens the service draws itself (`screens.ts`), its profile (`profiles.ts`), its logs
 * (`logs.ts`), its keys (`keys.ts`), and displays behind another provider (`external.ts`).
 * `DisplaysService` builds them once, sharing one key cache and one set of screens.
 */
import type { Db } from "../../schema.ts";
import type { ChangeFeed } from "../../infra/db/cache/feed.ts";
import type { DevicesService } from "../devices/service.ts";
import type { PushesService } from "../pushes/service.ts";
import type { Renderer } from "../../infra/render/types.ts";
import type { ObjectStore } from "../../infra/storage/object_store.ts";
import type { Log } from "../../infra/lib/log.ts";
import type { Network } from "../../infra/lib/networks.ts";
import type { Jobs } from "../../infra/jobs/types.ts";
import { ExternalDisplays, type ProviderPoster } from "./external.ts";
import { DisplayKeys } from "./keys.ts";
import { KeylessPolls } from "./keyless.ts";
import { DisplayLogs } from "./logs.ts";
import { DisplayPairing } from "./pairing.ts";
import type { PollExtras } from "./poll_extras.ts";
import { DisplayPolls } from "./polls.ts";
import { DisplayProfiles } from "./profiles.ts";
import { DisplayScreens } from "./screens.ts";

/** What `DisplaysService` is built from (one object, like every domain's service). */
export interface DisplaysDeps {
  db: Db;
  devices: DevicesService;
  pushes: PushesService;
  store: ObjectStore;
  renderer: Renderer;
  /** DISPLAY_SETUPS_PER_MINUTE. */
  setupsPerMinute: number;
  /** DISPLAYS_PER_USER: displays one user may hold (claimed, enrolled, and unused tokens). */
  displaysPerUser: number;
  /** DISPLAY_KEYLESS_NETWORKS: where polls that send no key are answered from (none: nowhere). */
  keylessNetworks: readonly Network[];
  /** The service's public origin, shown on the claim screen and in a push's `image_url`. */
  baseUrl: () => string;
  /** HMAC key of a push's `image_url` (`GET /api/display/image/{pushId}`). */
  imageSecret: string;
  /** Invalidation of the displays-by-key cache; without it nothing is cached. */
  changes?: ChangeFeed;
  log?: Log;
  /** What other domains add to a claimed display's poll (firmware, button; poll_extras.ts). */
  extras?: PollExtras;
  /** Background work: posts to providers' webhooks. */
  jobs: Jobs;
  /** The SSRF-safe outbound fetcher a provider's webhook is posted through. */
  poster: ProviderPoster;
  /** AES-256-GCM key sealing providers' credentials at rest. */
  providerKey: Uint8Array;
  /** PROVIDER_POSTS_PER_HOUR. */
  providerPostsPerHour: number;
}

export class DisplaysService {
  /** Setup, claim and enrollment tokens. */
  readonly pairing: DisplayPairing;
  /** Polls and the pictures they answer. */
  readonly polls: DisplayPolls;
  /** The owner's profile of a display, and its reset. */
  readonly profiles: DisplayProfiles;
  /** A display's log entries. */
  readonly logs: DisplayLogs;
  /** Displays behind another provider: image feeds and TRMNL's webhook (`external.ts`). */
  readonly external: ExternalDisplays;

  constructor(deps: DisplaysDeps) {
    const keys = new DisplayKeys(deps.db, deps.changes);
    const screens = new DisplayScreens({
      store: deps.store,
      renderer: deps.renderer,
      baseUrl: deps.baseUrl,
      log: deps.log,
    });
    this.pairing = new DisplayPairing({ ...deps, screens });
    const keyless = new KeylessPolls({
      keys,
      devices: deps.devices,
      pairing: this.pairing,
      screens,
      keylessNetworks: deps.keylessNetworks,
    });
    this.polls = new DisplayPolls({
      ...deps,
      keys,
      pairing: this.pairing,
      screens,
      keyless,
      extras: deps.extras ?? { firmware: [], button: [] },
    });
    this.profiles = new DisplayProfiles(deps.db, deps.devices);
    this.logs = new DisplayLogs(deps.db, keys, deps.devices);
    this.external = new ExternalDisplays({
      ...deps,
      pairing: this.pairing,
      screens,
      postsPerHour: deps.providerPostsPerHour,
    });
  }
}
