/**
 * Displays behind another provider (CONTRACT.md "Displays behind another provider, and image
 * feeds", SPEC 9.6): a device whose `transport` is `image_feed` (ESPHome's `online_image`, Home
 * Assistant, a kiosk fetch one secret URL) or `trmnl_webhook` (a TRMNL device on TRMNL's hosted
 * service, fed through a private plugin's webhook). Its profile is a claimed `displays` row
 * without a MAC or usable key, so pushes are drawn for it and `display-profile` works as for any
 * display; `display_providers` keeps the feed token's hash and the sealed webhook.
 */
import type { Db, Trx } from "../../schema.ts";
import { badRequest, conflict, notFound } from "../../errors.ts";
import type { DeviceRow, DevicesService } from "../devices/service.ts";
import type { TransportHealth } from "../devices/transport.ts";
import { toDevice } from "../devices/views.ts";
import type { PushesService } from "../pushes/service.ts";
import type { Attempt, Jobs } from "../../infra/jobs/types.ts";
import type { ObjectStore } from "../../infra/storage/object_store.ts";
import { randomToken, sha256Hex } from "../../infra/lib/crypto.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import { type Log, silentLog } from "../../infra/lib/log.ts";
import { open, seal } from "../../infra/lib/sealed.ts";
import { sign } from "../../infra/storage/signing.ts";
import { checkLinkSyntax, type LinkFailure } from "../../infra/outbound/fetch_link.ts";
import { LastWrites } from "./last_writes.ts";
import type { DisplayPairing } from "./pairing.ts";
import { pictureMessage } from "./polls.ts";
import * as providers from "./providers_repository.ts";
import { providerPostQueue } from "./queues.ts";
import * as repo from "./repository.ts";
import { type DisplayScreens, screenPanel } from "./screens.ts";
import type { OwnerProfile } from "./tables.ts";
import { MAX_PANEL_PIXELS } from "./views.ts";

/** The providers a display may be behind (each has its transport adapter, `transport_*.ts`). */
export const PROVIDERS = ["image_feed", "trmnl_webhook"] as const;
export type Provider = typeof PROVIDERS[number];

/** CONTRACT.md: a side of an external display's panel, in pixels. */
export const MIN_SIDE = 16;
export const MAX_EXTERNAL_SIDE = 4096;
/** CONTRACT.md: the picture URL a provider is sent lives 24 h. */
export const PROVIDER_URL_TTL_SECONDS = 24 * 60 * 60;
/** A fetch of a feed within this long of the last one this process recorded writes nothing. */
const SEEN_EVERY_MS = 60_000;
/** A provider that does not answer a post within this long has failed it (retried later). */
export const PROVIDER_TIMEOUT_MS = 10_000;
/** A feed token: base64url of 32 random bytes (256 bits; CONTRACT.md asks at least 128). */
const FEED_TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** A TRMNL private plugin's webhook: `/api/custom_plugins/<uuid>` (TRMNL's docs). */
const TRMNL_WEBHOOK_PATH = /^\/api\/custom_plugins\/[A-Za-z0-9-]{8,64}$/;

/** How a provider's webhook is posted to: the SSRF-safe outbound fetcher (as webhooks'). */
export interface ProviderPoster {
  checkTarget(link: string): Promise<LinkFailure | null>;
  post(
    link: string,
    headers: Record<string, string>,
    body: Uint8Array,
  ): Promise<{ ok: true; status: number } | LinkFailure>;
}

export interface NewExternalDisplay {
  name: string;
  provider: Provider;
  width?: number;
  height?: number;
  bitDepth?: 1 | 2 | 4;
  credentials?: { webhookUrl?: string };
}

/** What a feed's fetch answers: the picture, or 304 when the client has it. */
export type FeedAnswer =
  | { status: 200; etag: string; png: Uint8Array }
  | { status: 304; etag: string };

export interface ExternalDisplaysDeps {
  db: Db;
  devices: DevicesService;
  pushes: PushesService;
  pairing: DisplayPairing;
  screens: DisplayScreens;
  store: ObjectStore;
  jobs: Jobs;
  poster: ProviderPoster;
  /** The service's public origin: feed URLs and the picture URLs a provider is sent. */
  baseUrl: () => string;
  /** HMAC key of a push's picture URL (`GET /api/display/image/{pushId}`). */
  imageSecret: string;
  /** AES-256-GCM key sealing webhook URLs at rest. */
  providerKey: Uint8Array;
  /** PROVIDER_POSTS_PER_HOUR: posts to one display's webhook per hour at most. */
  postsPerHour: number;
  log?: Log;
}

export class ExternalDisplays {
  private readonly log: Log;
  /** When this process last recorded each feed's device as seen (one write a minute at most). */
  private readonly seen = new LastWrites(SEEN_EVERY_MS);

  constructor(private readonly deps: ExternalDisplaysDeps) {
    this.log = deps.log ?? silentLog;
  }

  /**
   * `POST /api/devices/external`: the device (bound to the caller), its profile and its provider
   * row in one transaction, under the caller's display limit. 400 for a size out of range or
   * credentials the provider does not take; answers the feed URL of an `image_feed` once.
   */
  async create(userId: string, input: NewExternalDisplay) {
    const profile = panelOf(input);
    const webhook = await this.webhookOf(input);
    const token = input.provider === "image_feed" ? randomToken(32) : null;
    const device = await this.deps.db.transaction().execute(async (trx) => {
      await repo.lockUserDisplays(trx, userId);
      await this.deps.pairing.refuseOverLimit(trx, userId, 1);
      const name = input.name.trim();
      const row = await this.deps.devices.createExternal(trx, userId, input.provider, name || null);
      await repo.insertDisplay(trx, {
        id: uuidv7(),
        mac: null,
        // A hash no key has (a random one): nothing can poll as this display.
        key_hash: sha256Hex(`external:${randomToken(32)}`),
        status: "claimed",
        device_id: row.id,
        name: name || null,
        profile,
        claimed_at: new Date(),
      });
      await providers.insertProvider(trx, {
        device_id: row.id,
        provider: input.provider,
        feed_token_hash: token && sha256Hex(token),
        webhook_sealed: webhook && await seal(this.deps.providerKey, webhook.href),
        webhook_host: webhook?.host ?? null,
      });
      return row;
    });
    // Drawn now, not at the first fetch: a feed's fetch only reads stored bytes.
    await this.deps.screens.noPush(screenPanel(await this.displayOf(device.id))).catch((error) =>
      this.log.info("external display screen not drawn", { error: String(error) })
    );
    return { device: toDevice(device), ...(token ? { feedUrl: this.feedUrl(token) } : {}) };
  }

  /** `POST /api/devices/{id}/feed-token`: a new feed URL; the old one is 404 from now on. */
  async rotateFeedToken(userId: string, deviceId: string) {
    await this.deps.devices.owned(userId, deviceId);
    const row = await providers.findProvider(this.deps.db, deviceId);
    if (row?.provider !== "image_feed") {
      throw conflict("The device is not an image feed (transport image_feed)");
    }
    const token = randomToken(32);
    await providers.updateProvider(this.deps.db, deviceId, { feed_token_hash: sha256Hex(token) });
    return { feedUrl: this.feedUrl(token) };
  }

  /**
   * `GET /api/feeds/{token}.png`: the device's current picture (a waiting push published first,
   * as a display's poll does), 304 when `If-None-Match` names it. The token is looked up by its
   * hash (nothing compares it byte by byte); an unknown one is 404 after one index lookup. The
   * fetch is the device seen (at most one write a minute) and the push fetched. Nothing is drawn
   * here: the picture is a stored render, or the stored "nothing yet" screen.
   */
  async feed(token: string, ifNoneMatch: string | null): Promise<FeedAnswer> {
    if (!FEED_TOKEN.test(token)) throw notFound("Unknown feed");
    const display = await providers.findFeed(this.deps.db, sha256Hex(token));
    const head = display?.device_id ? await this.deps.devices.head(display.device_id) : undefined;
    if (!display || !head?.owner_id) throw notFound("Unknown feed");
    await this.seen.write(head.id, "seen", () => this.deps.devices.reportSeen(head.id));
    const { push } = await this.deps.pushes.forDisplay(head);
    const sha256 = push?.sha256 ?? null;
    if (push && sha256) {
      const etag = `"${sha256}"`;
      if (matches(ifNoneMatch, etag)) return { status: 304, etag };
      const png = await this.deps.pushes.fetchPicture(push.pushId);
      if (png) return { status: 200, etag, png };
    }
    const screen = await this.deps.screens.noPush(screenPanel(display));
    const etag = `"${screen.sha256}"`;
    if (matches(ifNoneMatch, etag)) return { status: 304, etag };
    const png = await this.deps.store.get(screen.key);
    if (!png) throw notFound("Unknown feed");
    return { status: 200, etag, png };
  }

  /** A `trmnl_webhook` device's health: the webhook's host, its last post and last failure. */
  async health(device: DeviceRow): Promise<TransportHealth> {
    const row = await providers.findProvider(this.deps.db, device.id);
    return {
      provider: {
        name: device.transport,
        host: row?.webhook_host ?? null,
        lastPostAt: row?.posted_at?.toISOString() ?? null,
        lastError: row?.last_error ?? null,
        lastErrorAt: row?.last_error_at?.toISOString() ?? null,
      },
    };
  }

  /**
   * A push of a `trmnl_webhook` device is ready or chosen: its post is queued, in `trx`, no
   * earlier than the provider's limit allows (one queued per device at most: the queue is
   * `stately`, so a burst leaves one post, which sends the newest).
   */
  async schedulePost(trx: Trx, deviceId: string) {
    const row = await providers.findProvider(trx, deviceId);
    if (!row) return;
    await this.deps.jobs.send(providerPostQueue, { deviceId }, {
      trx,
      singletonKey: deviceId,
      startAfterSeconds: this.waitSeconds(row.posted_at),
    });
  }

  /**
   * The handler of `providerPostQueue`: under the limit, every waiting push is published and the
   * newest posted as TRMNL merge variables with a picture URL valid 24 h. A failure is recorded
   * (the device's health) and retried with backoff; the last attempt's stays recorded.
   */
  async deliver(job: { deviceId: string }, attempt: Attempt) {
    const row = await providers.findProvider(this.deps.db, job.deviceId);
    if (row?.provider !== "trmnl_webhook" || !row.webhook_sealed) return;
    const wait = this.waitSeconds(row.posted_at);
    if (wait > 0) {
      await this.deps.jobs.send(providerPostQueue, job, {
        singletonKey: job.deviceId,
        startAfterSeconds: wait,
      });
      return;
    }
    const push = await this.deps.pushes.publishWaiting(job.deviceId);
    if (!push || push.id === row.posted_push_id) return;
    const body = JSON.stringify({
      merge_variables: { image_url: this.pictureUrl(push.id), title: push.title, pushId: push.id },
    });
    const result = await this.deps.poster.post(
      await open(this.deps.providerKey, row.webhook_sealed),
      { "content-type": "application/json" },
      new TextEncoder().encode(body),
    );
    const failure = !result.ok
      ? result.message
      : result.status < 200 || result.status > 299
      ? `The provider answered HTTP ${result.status}`
      : null;
    if (failure === null) {
      await providers.updateProvider(this.deps.db, job.deviceId, {
        posted_push_id: push.id,
        posted_at: new Date(),
        last_error: null,
        last_error_at: null,
      });
      return;
    }
    await providers.updateProvider(this.deps.db, job.deviceId, {
      last_error: failure.slice(0, 500),
      last_error_at: new Date(),
    });
    this.log.info("provider post failed", {
      deviceId: job.deviceId,
      error: failure,
      attempt: attempt.number,
    });
    if (!attempt.final) throw new Error(failure);
  }

  /** Seconds until the next post is allowed after one at `postedAt` (0: now). */
  private waitSeconds(postedAt: Date | null): number {
    if (!postedAt) return 0;
    const next = postedAt.getTime() + 3_600_000 / this.deps.postsPerHour;
    return Math.max(0, Math.ceil((next - Date.now()) / 1000));
  }

  /** The picture URL a provider is sent: the display picture route, signed for 24 h. */
  private pictureUrl(pushId: string): string {
    const expires = Math.floor(Date.now() / 1000) + PROVIDER_URL_TTL_SECONDS;
    const signature = sign(this.deps.imageSecret, pictureMessage(pushId, expires));
    return `${this.deps.baseUrl()}/api/display/image/${pushId}?expires=${expires}&signature=${signature}`;
  }

  private feedUrl(token: string): string {
    return `${this.deps.baseUrl()}/api/feeds/${token}.png`;
  }

  private async displayOf(deviceId: string) {
    const display = await repo.findClaimedByDevice(this.deps.db, deviceId);
    if (!display) throw new Error("external display vanished");
    return display;
  }

  /**
   * The webhook of a `trmnl_webhook` display (400 when missing, malformed or refused by the
   * outbound rules); null for an `image_feed`, which takes no credentials.
   */
  private async webhookOf(input: NewExternalDisplay): Promise<URL | null> {
    const link = input.credentials?.webhookUrl;
    if (input.provider === "image_feed") {
      if (input.credentials !== undefined) throw badRequest("image_feed takes no credentials");
      return null;
    }
    if (typeof link !== "string") throw badRequest("credentials.webhookUrl is required");
    const syntax = checkLinkSyntax(link);
    if (syntax) throw badRequest(`credentials.webhookUrl: ${syntax}`);
    const url = new URL(link);
    if (!TRMNL_WEBHOOK_PATH.test(url.pathname) || url.search || url.hash) {
      throw badRequest(
        "credentials.webhookUrl must be a TRMNL private plugin's webhook " +
          "(https://usetrmnl.com/api/custom_plugins/<uuid>)",
      );
    }
    const refusal = await this.deps.poster.checkTarget(link);
    if (refusal && !refusal.transient) {
      throw badRequest(`credentials.webhookUrl: ${refusal.message}`);
    }
    return url;
  }
}

/** The profile an external display starts with: CONTRACT.md's defaults, 400 out of range. */
function panelOf(input: NewExternalDisplay): Partial<OwnerProfile> {
  const width = input.width ?? 800;
  const height = input.height ?? 480;
  const bitDepth = input.bitDepth ?? 1;
  for (const [name, side] of [["width", width], ["height", height]] as const) {
    if (!Number.isInteger(side) || side < MIN_SIDE || side > MAX_EXTERNAL_SIDE) {
      throw badRequest(`${name} must be an integer from ${MIN_SIDE} to ${MAX_EXTERNAL_SIDE}`);
    }
  }
  if (width * height > MAX_PANEL_PIXELS) {
    throw badRequest(`width x height must be at most ${MAX_PANEL_PIXELS} pixels`);
  }
  return { width, height, bitDepth };
}

/** Whether `If-None-Match` names `etag` (a list, weak or strong, or `*`). */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((tag) => {
    const value = tag.trim().replace(/^W\//, "");
    return value === etag || value === "*";
  });
}
