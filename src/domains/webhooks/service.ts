/**
 * Event webhooks (issue 24, CONTRACT.md "Integrations"): a user's subscriptions, the events the
 * other domains emit in their own transactions, and their signed deliveries from the jobs side.
 *
 * An event is recorded only when one of the user's webhooks subscribes to its type: with none,
 * `emit` costs one indexed read. Each matching webhook gets one delivery row (unique per webhook
 * and event) and one delivery job, both in the emitting transaction, so a delivery exists exactly
 * when the change committed and exactly once per subscription, whichever API process caused it
 * and whichever worker sends it.
 */
import type { Db, Trx } from "../../schema.ts";
import { badRequest } from "../../errors.ts";
import * as access from "../../infra/access/mod.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import { randomToken } from "../../infra/lib/crypto.ts";
import { anchorOf, keysetPage } from "../../infra/lib/cursor.ts";
import { type Log, silentLog } from "../../infra/lib/log.ts";
import type { Attempt, Jobs } from "../../infra/jobs/types.ts";
import type { DeviceObservation, EventSink, WebhookEventType } from "./events.ts";
import { webhookDeliveryQueue } from "./queues.ts";
import { signatureHeader } from "./sign.ts";
import type { DeliveryAttempt } from "./tables.ts";
import { toDelivery, toWebhook } from "./views.ts";
import * as repo from "./repository.ts";
import { tag } from "../../infra/db/cache/announced.ts";
import { ChangeFeed } from "../../infra/db/cache/feed.ts";
import type { TaggedCache } from "../../infra/db/cache/tagged_cache.ts";

/** What an owner check of this kind answers (src/infra/access/mod.ts). */
export const WEBHOOK = access.hidden("webhook", "Webhook not found");

/** How long an event and its deliveries are kept (docs/webhooks.md). */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Sends one delivery under the SSRF guard (src/infra/outbound/fetch_link.ts `post`). */
export interface WebhookTransport {
  checkTarget(url: string): Promise<{ message: string; privateTarget?: boolean } | null>;
  post(
    url: string,
    headers: Record<string, string>,
    body: Uint8Array,
  ): Promise<{ ok: true; status: number } | { ok: false; message: string }>;
}

export interface WebhooksDeps {
  db: Db;
  jobs: Jobs;
  transport: WebhookTransport;
  log?: Log;
  /** Invalidation of `watchesDevices`'s cache; without it nothing is cached. */
  changes?: ChangeFeed;
  /** Whether private and loopback targets are allowed (WEBHOOK_ALLOW_PRIVATE), for messages. */
  allowPrivate?: boolean;
  policy?: Partial<TargetPolicy>;
}

/** One attempt's deadline, connection and answer's head included (docs/webhooks.md). */
export const DELIVERY_TIMEOUT_MS = 5000;
/** A lease outlives its attempt's deadline by this much (the attempt's writes). */
const LEASE_MARGIN_MS = 5000;
/** The first try and 34 retries (queues.ts). */
export const MAX_ATTEMPTS = 35;

/** How deliveries share the workers, and how a failing target is slowed and disabled. */
export interface TargetPolicy {
  /** Deliveries of one user in flight at once, across all processes (one per target). */
  userSlots: number;
  /** Failed attempts in a row (any of the target's deliveries) from which it is slowed. */
  slowAfter: number;
  /** A slowed target's pause after a failure: this, doubling per further failure, capped. */
  pauseMs: number;
  maxPauseMs: number;
  /** Failed attempts in a row after which the webhook is disabled until its owner enables it. */
  disableAfter: number;
  /** Backlog deliveries a lease holder sends after its own, and for how long at most. */
  drainMax: number;
  drainMs: number;
}

/**
 * Two of a worker's eight delivery slots per user; slowed from the 3rd failure in a row (10 s
 * doubling to 15 minutes between tries), disabled at the 20th: nearly 3 h of failing at least.
 */
export const TARGET_POLICY: TargetPolicy = {
  userSlots: 2,
  slowAfter: 3,
  pauseMs: 10_000,
  maxPauseMs: 15 * 60_000,
  disableAfter: 20,
  drainMax: 10,
  drainMs: 2000,
};

/** Deliveries' User-Agent: who sends them, and where (docs/webhooks.md). */
export function webhookUserAgent(publicBaseUrl: string): string {
  return `DeviceDisplayService-Webhooks/1.0 (+${publicBaseUrl})`;
}

/** Webhooks per user at most. */
export const MAX_WEBHOOKS = 20;
/** CONTRACT.md: retried for 24 h. */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The battery percentage at or below which a device is low, unless the user set another. */
export const DEFAULT_BATTERY_LOW = 20;
const DEFAULT_PAGE = 20;
const MAX_PAGE = 50;
const DEVICE_EVENTS = ["device.online", "device.offline", "device.battery_low"] as const;

export class WebhooksService implements EventSink {
  private readonly db: Db;
  private readonly jobs: Jobs;
  private readonly transport: WebhookTransport;
  private readonly log: Log;
  private readonly allowPrivate: boolean;
  /** The fairness and health policy; tests shorten it on a running service. */
  readonly policy: TargetPolicy;
  /**
   * Whether a user has a webhook subscribed to a device event, by user id: every device report
   * asks. Dropped when any webhook of the user changes (the `webhooks_changed` trigger).
   */
  private readonly watching: TaggedCache<boolean>;

  constructor(deps: WebhooksDeps) {
    this.db = deps.db;
    this.jobs = deps.jobs;
    this.transport = deps.transport;
    this.log = deps.log ?? silentLog;
    this.allowPrivate = deps.allowPrivate ?? false;
    this.policy = { ...TARGET_POLICY, ...deps.policy };
    this.watching = (deps.changes ?? ChangeFeed.disabled()).cache();
  }

  /** `POST /api/webhooks`: the secret is returned here and never again. */
  async create(userId: string, input: { url: string; events: WebhookEventType[] }) {
    const refusal = await this.transport.checkTarget(input.url);
    if (refusal) {
      // A private or loopback target is what a local set-up means: say what allows it.
      const hint = refusal.privateTarget && !this.allowPrivate
        ? " (private and loopback targets are allowed only when the server sets " +
          "WEBHOOK_ALLOW_PRIVATE=1, for local use)"
        : "";
      throw badRequest(`url is refused: ${refusal.message}${hint}`);
    }
    if (await repo.countWebhooks(this.db, userId) >= MAX_WEBHOOKS) {
      throw badRequest(`At most ${MAX_WEBHOOKS} webhooks per user`);
    }
    const secret = "whsec_" + randomToken(32);
    const row = await repo.insertWebhook(this.db, {
      id: uuidv7(),
      user_id: userId,
      url: input.url,
      events: [...new Set(input.events)],
      secret,
    });
    return { ...toWebhook(row), secret };
  }

  async list(userId: string) {
    return (await repo.listWebhooks(this.db, userId)).map(toWebhook);
  }

  /**
   * `POST /api/webhooks/{id}/enable`: a disabled webhook receives events again, its failures
   * forgotten (an enabled one is answered as it is). Another user's webhook is 404.
   */
  async enable(userId: string, id: string) {
    const row = await repo.enableWebhook(this.db, userId, id);
    if (!row) throw access.missing(WEBHOOK);
    return toWebhook(row);
  }

  /** `DELETE /api/webhooks/{id}`: another user's webhook is 404 like an unknown one. */
  async remove(userId: string, id: string) {
    if (!(await repo.deleteWebhook(this.db, userId, id))) throw access.missing(WEBHOOK);
  }

  /** `GET /api/webhooks/{id}/deliveries`: newest first, paged like pushes. */
  async deliveries(userId: string, id: string, input: { cursor?: string; limit?: number }) {
    if (!(await repo.findWebhook(this.db, userId, id))) throw access.missing(WEBHOOK);
    const after = anchorOf(input.cursor);
    const limit = Math.min(input.limit ?? DEFAULT_PAGE, MAX_PAGE);
    const rows = await repo.listDeliveries(this.db, id, after, limit);
    return await keysetPage(rows, limit, (page) => page.map(toDelivery));
  }

  async settings(userId: string) {
    return {
      batteryLowThreshold: await repo.batteryThreshold(this.db, userId) ?? DEFAULT_BATTERY_LOW,
    };
  }

  async setSettings(userId: string, input: { batteryLowThreshold: number }) {
    await repo.setBatteryThreshold(this.db, userId, input.batteryLowThreshold);
    return await this.settings(userId);
  }

  /** Records an event in `trx` and one delivery job per subscribed webhook of the user. */
  async emit(trx: Trx, userId: string, type: WebhookEventType, data: Record<string, unknown>) {
    const hooks = await repo.subscribed(trx, userId, [type]);
    if (hooks.length === 0) return;
    await this.record(trx, userId, type, data, hooks.map((h) => h.id));
  }

  /** `emit` for many changes of one type (a playlist's item published): hooks read once. */
  async emitMany(
    trx: Trx,
    userId: string,
    type: WebhookEventType,
    datas: Record<string, unknown>[],
  ) {
    if (datas.length === 0) return;
    const hooks = await repo.subscribed(trx, userId, [type]);
    if (hooks.length === 0) return;
    for (const data of datas) await this.record(trx, userId, type, data, hooks.map((h) => h.id));
  }

  private async record(
    trx: Trx,
    userId: string,
    type: WebhookEventType,
    data: Record<string, unknown>,
    webhookIds: string[],
  ) {
    const eventId = uuidv7();
    await repo.insertEvent(trx, {
      id: eventId,
      user_id: userId,
      type,
      data,
      created_at: new Date(),
    });
    const inserted = await repo.insertDeliveries(
      trx,
      webhookIds.map((webhookId) => ({ id: uuidv7(), webhook_id: webhookId, event_id: eventId })),
    );
    for (const { id } of inserted) {
      await this.jobs.send(webhookDeliveryQueue, { deliveryId: id }, { trx });
    }
  }

  /** Whether any webhook of the user subscribes to a device event (cached per process). */
  watchesDevices(userId: string): Promise<boolean> {
    return this.watching.get(
      userId,
      () => [tag.user(userId)],
      async () => (await repo.subscribed(this.db, userId, DEVICE_EVENTS)).length > 0,
    );
  }

  /**
   * A device report, in its transaction (the device row is locked by it, so two reports of one
   * device are observed one after the other): what changed since the last announcement of
   * online, offline and battery low is emitted. A device never announced counts as offline and
   * not low.
   */
  async observeDevice(trx: Trx, device: DeviceObservation) {
    const hooks = await repo.subscribed(trx, device.userId, DEVICE_EVENTS);
    if (hooks.length === 0) return;
    const threshold = await repo.batteryThreshold(trx, device.userId) ?? DEFAULT_BATTERY_LOW;
    const known = await repo.findDeviceState(trx, device.deviceId);
    const before = known?.user_id === device.userId ? known : { online: false, battery_low: false };
    // A report without a battery value leaves the battery's announcement as it was.
    const batteryLow = device.battery === null ? before.battery_low : device.battery <= threshold;
    if (known && before.online === device.online && before.battery_low === batteryLow) return;
    await repo.saveDeviceState(trx, {
      device_id: device.deviceId,
      user_id: device.userId,
      online: device.online,
      battery_low: batteryLow,
    });
    const subscribers = (type: WebhookEventType) =>
      hooks.filter((h) => h.events.includes(type)).map((h) => h.id);
    const emit = async (type: WebhookEventType, data: Record<string, unknown>) => {
      const ids = subscribers(type);
      if (ids.length > 0) await this.record(trx, device.userId, type, data, ids);
    };
    if (before.online !== device.online) {
      await emit(device.online ? "device.online" : "device.offline", {
        deviceId: device.deviceId,
        online: device.online,
      });
    }
    if (batteryLow && !before.battery_low) {
      await emit("device.battery_low", {
        deviceId: device.deviceId,
        battery: device.battery,
        threshold,
      });
    }
  }

  /** Devices last announced online, for the offline sweep. */
  /**
   * Drops events older than `EVENT_RETENTION_MS` (and their deliveries), at most `limit` a call:
   * a delivery is retried for 24 h, and its record stays readable for a month after.
   */
  pruneEvents(limit: number, now = Date.now()): Promise<number> {
    return repo.pruneEvents(this.db, new Date(now - EVENT_RETENTION_MS), limit);
  }

  announcedOnline(limit: number) {
    return repo.announcedOnline(this.db, limit);
  }

  /** Forgets a device's announcements (no owner any more, or another one). */
  async forgetDevice(trx: Trx, deviceId: string) {
    await repo.deleteDeviceState(trx, deviceId);
  }

  /**
   * The handler of `webhookDeliveryQueue`: one signed POST; any 2xx acknowledges, anything else
   * is recorded and thrown, so the queue retries with backoff, until the last attempt or 24 h.
   *
   * Fair per user and per target (CONTRACT.md "Display ownership and fair shares"): the
   * delivery first takes its target's lease (`repo.claimTarget`), one delivery in flight per
   * target and `policy.userSlots` per user across processes. A target that is busy, slowed, or
   * whose user has every slot is not waited for: the job is sent again for when it may be free
   * and this slot goes to the next job. The lease holder then sends the target's backlog of
   * unattempted deliveries (a few, briefly), so a burst to one fast target is not spaced out.
   */
  async deliver(job: { deliveryId: string; deferrals?: number }, attempt: Attempt) {
    const delivery = await repo.findDelivery(this.db, job.deliveryId);
    // Webhook deleted (its deliveries went with it), or already settled by an earlier run.
    if (!delivery || delivery.status !== "pending") return;
    const claim = await this.claim(delivery.webhook_id);
    if (claim.kind === "gone") return;
    if (claim.kind === "disabled") {
      await repo.failDelivery(this.db, delivery.id);
      return;
    }
    if (claim.kind === "busy") {
      if (Date.now() - delivery.event_created_at.getTime() >= RETRY_WINDOW_MS) {
        await repo.failDelivery(this.db, delivery.id);
        return;
      }
      await this.defer(delivery.id, job.deferrals ?? 0, claim);
      return;
    }
    const status = await this.attempt(delivery, attempt.final);
    if (status === "pending") {
      throw new Error(`Webhook delivery failed: ${delivery.url}`);
    }
    if (status === "delivered") await this.drain(delivery.webhook_id, delivery.id);
  }

  /** The target's lease, from now for one attempt's deadline and a margin. */
  private claim(webhookId: string) {
    const now = new Date();
    return repo.claimTarget(
      this.db,
      webhookId,
      now,
      new Date(now.getTime() + DELIVERY_TIMEOUT_MS + LEASE_MARGIN_MS),
      this.policy.userSlots,
    );
  }

  /**
   * Sends the delivery's job again for when its target may be free: a paused target's pause; a
   * lease's end or, as leases usually end well before their deadline, sooner: a second, doubling
   * with each deferral of the delivery (so many deferred jobs of one user do not crowd the queue),
   * with jitter so they do not all wake at once.
   */
  private async defer(
    deliveryId: string,
    deferrals: number,
    claim: { reason: "lease" | "paused"; until: Date },
  ) {
    const left = Math.max(claim.until.getTime() - Date.now(), 0);
    const soon = 1000 * 2 ** Math.min(deferrals, 10);
    const wait = (claim.reason === "paused" ? left : Math.min(left, soon)) + Math.random() * 1000;
    await this.jobs.send(webhookDeliveryQueue, { deliveryId, deferrals: deferrals + 1 }, {
      startAfterSeconds: Math.max(1, Math.round(wait / 1000)),
    });
  }

  /**
   * While the target answers, its holder sends the next unattempted deliveries of its backlog
   * (at most `policy.drainMax`, for `policy.drainMs`), taking the lease again before each; their
   * own jobs find them settled.
   */
  private async drain(webhookId: string, first: string) {
    const started = performance.now();
    const sent = [first];
    while (
      sent.length <= this.policy.drainMax && performance.now() - started < this.policy.drainMs
    ) {
      const next = await repo.nextUnattempted(this.db, webhookId, sent);
      if (!next) return;
      sent.push(next.id);
      if ((await this.claim(webhookId)).kind !== "claimed") return;
      const delivery = await repo.findDelivery(this.db, next.id);
      if (!delivery || delivery.status !== "pending") {
        await repo.releaseLease(this.db, webhookId);
        continue;
      }
      // A failure here stays pending: its own job retries it with backoff.
      if (await this.attempt(delivery, false) !== "delivered") return;
    }
  }

  /**
   * One attempt under the target's lease: the POST, then in one transaction the attempt, the
   * delivery's status, the lease released and the target's health (slowed, then disabled).
   */
  private async attempt(
    delivery: NonNullable<Awaited<ReturnType<typeof repo.findDelivery>>>,
    lastTry: boolean,
  ): Promise<"pending" | "delivered" | "failed"> {
    const body = JSON.stringify({
      id: delivery.event_id,
      type: delivery.type,
      createdAt: delivery.event_created_at.toISOString(),
      data: delivery.data,
    });
    const now = Date.now();
    const started = performance.now();
    const result = await this.transport.post(delivery.url, {
      "Content-Type": "application/json",
      "Webhook-Id": delivery.event_id,
      "Webhook-Signature": signatureHeader(delivery.secret, Math.floor(now / 1000), body),
    }, new TextEncoder().encode(body));
    const acknowledged = result.ok && result.status >= 200 && result.status < 300;
    const number = Number(delivery.attempt_count) + 1;
    const record: DeliveryAttempt = {
      attempt: number,
      at: new Date(now).toISOString(),
      statusCode: result.ok ? result.status : null,
      error: acknowledged
        ? null
        : result.ok
        ? `Answered ${result.status}`
        : result.message.slice(0, 500),
      durationMs: Math.round(performance.now() - started),
    };
    const expired = now - delivery.event_created_at.getTime() >= RETRY_WINDOW_MS;
    const final = lastTry || number >= MAX_ATTEMPTS || expired;
    const status = acknowledged ? "delivered" : final ? "failed" : "pending";
    const disabled = await this.db.transaction().execute(async (trx) => {
      await repo.recordAttempt(trx, delivery.id, record, status);
      const failures = await repo.releaseTarget(trx, delivery.webhook_id, acknowledged);
      if (acknowledged) return false;
      const at = new Date();
      if (failures >= this.policy.disableAfter) {
        await repo.disableTarget(
          trx,
          delivery.webhook_id,
          at,
          `${failures} deliveries in a row failed, the last: ${record.error}`.slice(0, 600),
        );
        return true;
      }
      if (failures >= this.policy.slowAfter) {
        const pause = Math.min(
          this.policy.pauseMs * 2 ** (failures - this.policy.slowAfter),
          this.policy.maxPauseMs,
        );
        await repo.slowTarget(trx, delivery.webhook_id, new Date(at.getTime() + pause));
      }
      return false;
    });
    if (disabled) {
      this.log.info("webhook disabled", { webhookId: delivery.webhook_id, error: record.error });
      return "failed";
    }
    if (status === "pending") {
      this.log.info("webhook delivery failed", { deliveryId: delivery.id, error: record.error });
    }
    return status;
  }
}
