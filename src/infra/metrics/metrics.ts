/**
 * What the service counts for its operators, in Prometheus text format (prom-client). One
 * `Metrics` object is built by the composition root and handed to the infrastructure that
 * observes something (the pre-router, the jobs, the render pool, the MQTT gateway and broker, the
 * database): no domain sees it, and nothing is global. `NO_METRICS` is the default everywhere, so
 * a module built without it (tests, tools) counts nothing.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { DOWN_CHANNELS, UP_CHANNELS } from "../mqtt/topics.ts";
import { HttpSeries } from "./http_series.ts";

/** A queue's depth as pg-boss reports it. */
export interface QueueDepth {
  name: string;
  /** Ready to run now. */
  ready: number;
  /** Waiting for a later start (retries in backoff, `startAfter`). */
  deferred: number;
  active: number;
}

/** Why a device message was not handled (a closed set: the label of `mqtt_dropped_total`). */
export const MQTT_DROP_REASONS = [
  "oversize",
  "device_backlog",
  "backlog_full",
  "backlog_wait",
] as const;
export type MqttDropReason = typeof MQTT_DROP_REASONS[number];

/** What infrastructure reports; every method is cheap and never throws. */
export interface Metrics {
  /** One answered HTTP request: its route template (never the raw path) and status. */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  /** One job handler run: `failed` when it threw (`final`: no retry follows). */
  jobRun(queue: string, outcome: "completed" | "failed" | "invalid", seconds: number): void;
  /** One render pool task: `rejected` is the input's fault, `error` the pool's. */
  render(kind: string, outcome: "ok" | "rejected" | "error", seconds: number): void;
  /** One MQTT message handled (`in`, from devices) or published (`out`, to devices). */
  mqttMessage(direction: "in" | "out", channel: string): void;
  /**
   * A device message not handled: `oversize`, `device_backlog` (its thing already has a full
   * backlog), `backlog_full` (shed: a `get_push`/`refresh_push` among them is answered busy),
   * `backlog_wait` (a `get_push`/`refresh_push` that would wait too long, answered busy).
   */
  mqttDropped(reason: MqttDropReason): void;
  /** A `down/push` `{"error":"busy","retryAfter"}` sent (`sent`) or not (`skipped`: too many in flight). */
  mqttBusy(outcome: "sent" | "skipped"): void;
  /** A database connection taken from (+1) or given back to (-1) the pool. */
  dbConnection(delta: 1 | -1): void;
  /** A caller starts (+1) or stops (-1) waiting for a database connection. */
  dbWaiting(delta: 1 | -1): void;
  /** Reported at scrape time: the pool's size. */
  dbPoolSize(size: number): void;
  /** Reported at scrape time: queue depths (the source is asked at most every few seconds). */
  queueDepths(source: () => Promise<QueueDepth[]>): void;
  /** Reported at scrape time: devices connected to the embedded broker. */
  mqttDevices(source: () => number): void;
}

/** Counts nothing: the default of every module that takes metrics. */
export const NO_METRICS: Metrics = {
  httpRequest() {},
  jobRun() {},
  render() {},
  mqttMessage() {},
  mqttDropped() {},
  mqttBusy() {},
  dbConnection() {},
  dbWaiting() {},
  dbPoolSize() {},
  queueDepths() {},
  mqttDevices() {},
};

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const CHANNELS = new Set<string>([...UP_CHANNELS, ...DOWN_CHANNELS]);
/** `http_request_duration_seconds`' buckets (seconds). */
export const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
/** Queue depths are read from PostgreSQL at most this often, whoever scrapes. */
const QUEUE_STATS_TTL_MS = 5_000;

/**
 * Labels are closed sets, so a client cannot grow the registry: an unknown method is `OTHER`, an
 * unknown MQTT channel `other`, and a path is only ever its route template (`(unmatched)` for 404).
 */
function methodLabel(method: string): string {
  return METHODS.has(method) ? method : "OTHER";
}

/** The registry behind `/metrics`. */
export class PromMetrics implements Metrics {
  readonly registry = new Registry();
  readonly #http: HttpSeries;
  readonly #jobs: Histogram;
  readonly #jobFailures: Counter;
  readonly #render: Histogram;
  readonly #mqtt: Counter;
  readonly #mqttDropped: Counter;
  readonly #mqttBusy: Counter;
  #dbInUse = 0;
  #dbWaiting = 0;
  #dbSize?: number;
  #queues?: () => Promise<QueueDepth[]>;
  #queueCache?: { at: number; value: Promise<QueueDepth[]> };
  #devices?: () => number;

  constructor() {
    const registers = [this.registry];
    // process_* (CPU, memory, open files, start time) and the runtime's heap and event loop lag.
    collectDefaultMetrics({ register: this.registry });
    this.#http = new HttpSeries(this.registry, {
      counter: {
        name: "http_requests_total",
        help: "HTTP requests answered, by method, route template and status",
      },
      histogram: {
        name: "http_request_duration_seconds",
        help: "Time from a request's arrival to its response headers, by route template",
        buckets: HTTP_BUCKETS,
      },
    });
    this.#jobs = new Histogram({
      name: "job_duration_seconds",
      help: "Job handler runs by queue and outcome",
      labelNames: ["queue", "outcome"],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    });
    this.#jobFailures = new Counter({
      name: "job_failures_total",
      help: "Job handler runs that threw (each is retried until its queue's limit)",
      labelNames: ["queue"],
      registers,
    });
    this.#render = new Histogram({
      name: "render_duration_seconds",
      help: "Render pool tasks by kind (image, template, scene, inspect) and outcome",
      labelNames: ["kind", "outcome"],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.#mqtt = new Counter({
      name: "mqtt_messages_total",
      help: "MQTT messages from devices (in) and to devices (out), by channel",
      labelNames: ["direction", "channel"],
      registers,
    });
    this.#mqttDropped = new Counter({
      name: "mqtt_dropped_total",
      help: "Device messages not handled: oversize, device_backlog (one device's backlog full), " +
        "backlog_full (the service shed them), backlog_wait (requests that would wait too long)",
      labelNames: ["reason"],
      registers,
    });
    this.#mqttBusy = new Counter({
      name: "mqtt_busy_answers_total",
      help: "down/push busy answers (retry after a delay) to shed get_push/refresh_push: sent, " +
        "or skipped while too many were in flight",
      labelNames: ["outcome"],
      registers,
    });
    // Every series from the start at 0, so a dashboard sees a rate rather than a missing line.
    for (const reason of MQTT_DROP_REASONS) this.#mqttDropped.inc({ reason }, 0);
    for (const outcome of ["sent", "skipped"]) this.#mqttBusy.inc({ outcome }, 0);
    // Gauges read at scrape time; arrows keep this object in reach of prom-client's `collect`.
    const inUse = () => this.#dbInUse;
    const waiting = () => this.#dbWaiting;
    const size = () => this.#dbSize;
    const depths = () => this.#queueDepths();
    const devices = () => this.#devices?.();
    new Gauge({
      name: "db_pool_connections_in_use",
      help: "Database connections the service holds now (a query or a transaction each)",
      registers,
      collect() {
        this.set(inUse());
      },
    });
    new Gauge({
      name: "db_pool_connections_waiting",
      help: "Callers waiting for a database connection",
      registers,
      collect() {
        this.set(waiting());
      },
    });
    new Gauge({
      name: "db_pool_connections_max",
      help: "Size of the service's database pool (1 for the embedded PGlite)",
      registers,
      collect() {
        const max = size();
        if (max !== undefined) this.set(max);
      },
    });
    new Gauge({
      name: "jobs_queue_depth",
      help: "Jobs per queue and state, as pg-boss last counted them (its monitor refreshes them)",
      labelNames: ["queue", "state"],
      registers,
      async collect() {
        this.reset();
        for (const q of await depths()) {
          this.set({ queue: q.name, state: "ready" }, q.ready);
          this.set({ queue: q.name, state: "deferred" }, q.deferred);
          this.set({ queue: q.name, state: "active" }, q.active);
        }
      },
    });
    new Gauge({
      name: "mqtt_connected_devices",
      help: "Devices connected to the embedded broker (absent with an external MQTT_URL)",
      registers,
      collect() {
        this.reset();
        const count = devices();
        if (count !== undefined) this.set(count);
      },
    });
  }

  httpRequest(method: string, route: string, status: number, seconds: number): void {
    this.#http.observe(methodLabel(method), route, status, seconds);
  }

  jobRun(queue: string, outcome: "completed" | "failed" | "invalid", seconds: number): void {
    this.#jobs.observe({ queue, outcome }, seconds);
    if (outcome === "failed") this.#jobFailures.inc({ queue });
  }

  render(kind: string, outcome: "ok" | "rejected" | "error", seconds: number): void {
    this.#render.observe({ kind, outcome }, seconds);
  }

  mqttMessage(direction: "in" | "out", channel: string): void {
    this.#mqtt.inc({ direction, channel: CHANNELS.has(channel) ? channel : "other" });
  }

  mqttDropped(reason: MqttDropReason): void {
    this.#mqttDropped.inc({ reason });
  }

  mqttBusy(outcome: "sent" | "skipped"): void {
    this.#mqttBusy.inc({ outcome });
  }

  dbConnection(delta: 1 | -1): void {
    this.#dbInUse += delta;
  }

  dbWaiting(delta: 1 | -1): void {
    this.#dbWaiting += delta;
  }

  dbPoolSize(size: number): void {
    this.#dbSize = size;
  }

  queueDepths(source: () => Promise<QueueDepth[]>): void {
    this.#queues = source;
  }

  mqttDevices(source: () => number): void {
    this.#devices = source;
  }

  /** Queue depths, read at most every few seconds (a scrape flood costs no more queries). */
  #queueDepths(): Promise<QueueDepth[]> {
    if (!this.#queues) return Promise.resolve([]);
    const now = Date.now();
    if (!this.#queueCache || now - this.#queueCache.at > QUEUE_STATS_TTL_MS) {
      // A failed read (database down) reports no depths rather than failing the scrape.
      this.#queueCache = { at: now, value: this.#queues().catch(() => []) };
    }
    return this.#queueCache.value;
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
