/**
 * The service's own MQTT client: subscribes to every device's `up/` channels (as a shared
 * subscription on an external broker, so that each message reaches one API process) and publishes
 * `down/` messages. Reconnects with exponential backoff; while disconnected a publish fails at
 * once with 503 rather than queueing, so nothing is ever reported `delivered` that was not
 * acknowledged by the broker (PUBACK, QoS 1).
 */
import mqtt, { type MqttClient } from "mqtt";
import type { Socket } from "node:net";
import { AppError } from "../../errors.ts";
import { DEFAULT_LIMITS, InboundQueue, type QueueLimits } from "./inbound_queue.ts";
import "./packets.ts";
import { parseTopic, SERVICE_SUBSCRIPTION, topicOf } from "./topics.ts";
import type { Metrics, MqttDropReason } from "../metrics/metrics.ts";

export interface InboundMessage {
  thingName: string;
  channel: string;
  payload: Uint8Array;
}

/** Where the gateway connects and with which credentials. */
export interface BrokerTarget {
  url: string;
  username?: string;
  password?: string;
}

/** Handles every message on `devices/+/up/#`; errors are reported through `onError`. */
export type MessageHandler = (message: InboundMessage) => Promise<void>;

export interface GatewayOptions {
  onError?(msg: string, fields?: Record<string, unknown>): void;
  /** How long a publish may wait for its PUBACK. */
  publishTimeoutMs?: number;
  /** Bounds of the hand-off to `onMessage` (tests lower them). */
  inbound?: QueueLimits;
  /** Messages by direction and channel (`/metrics`). */
  metrics?: Metrics;
  /** When requests are answered busy before the backlog is full (tests lower it). */
  shedding?: { minBacklog: number; maxWaitSeconds: number };
}

/**
 * Largest device message handled (`up/state` is the big one). The embedded broker refuses larger
 * packets outright; an external broker may pass them, so the service drops them here too.
 */
export const MAX_UP_PAYLOAD_BYTES = 64 * 1024;
/** Dropped messages are logged at most this often, with a count (a flood must not flood logs). */
const DROP_LOG_MS = 10_000;

/** Channels that ask for an answer on `down/push`: shed, they are answered busy. */
const ASKING = new Set(["up/get_push", "up/refresh_push"]);
/**
 * A shed device waits at least this long before asking again, plus up to as much again at
 * random, so that a fleet told to retry does not come back in step (docs/devices.md).
 */
export const BUSY_RETRY_SECONDS = 10;
/**
 * A request that would wait longer than this for its handler is answered busy at once (the goal:
 * every device gets an answer within 10 s), once the backlog holds at least `SHED_MIN_BACKLOG`.
 */
export const MAX_WAIT_SECONDS = 8;
const SHED_MIN_BACKLOG = 1_000;
/**
 * Busy answers awaiting their PUBACK at most (each holds a small packet and a timer): enough for
 * a fleet shed at once; past it a shed message gets none (counted), so a flood through an
 * external broker cannot make the service hold one per message.
 */
const MAX_BUSY_IN_FLIGHT = 10_000;

/** The `down/push` answer to a shed `get_push`/`refresh_push` (CONTRACT.md "MQTT topics"). */
export function busyAnswer(random = Math.random): { error: "busy"; retryAfter: number } {
  return {
    error: "busy",
    retryAfter: BUSY_RETRY_SECONDS + Math.floor(random() * (BUSY_RETRY_SECONDS + 1)),
  };
}

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 15_000;

/** Backoff for the n-th consecutive failed attempt: doubling, capped, with ±20% jitter. */
export function backoffDelay(attempt: number, random = Math.random): number {
  const base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempt));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/**
 * Built before the services (they publish through it), connected once the broker runs, and given
 * its message handler once the services exist: nothing is wired after the fact.
 */
export class MqttGateway {
  private attempts = 0;
  private readonly inbound: InboundQueue<InboundMessage>;
  private dropped = 0;
  private lastDropLog = 0;
  private busyInFlight = 0;
  #client?: MqttClient;
  #handler?: MessageHandler;
  #filter = SERVICE_SUBSCRIPTION;

  constructor(private readonly options: GatewayOptions = {}) {
    this.inbound = new InboundQueue(
      (message) => this.#handler ? this.#handler(message) : Promise.resolve(),
      (error, message) =>
        options.onError?.("mqtt message handling failed", {
          thingName: message.thingName,
          channel: message.channel,
          error: String(error),
        }),
      options.inbound ?? DEFAULT_LIMITS,
    );
  }

  /** A connected gateway with its handler, in one step (tests, tools). */
  static async connect(
    options: GatewayOptions & BrokerTarget & { onMessage: MessageHandler },
    waitMs = 5_000,
  ): Promise<MqttGateway> {
    const gateway = new MqttGateway(options);
    gateway.listen(options.onMessage);
    await gateway.connect(options, waitMs);
    return gateway;
  }

  /**
   * Registers the handler of device messages and subscribes to them (`filter`: the plain
   * `devices/+/up/#` or its `$share/<group>/` form). Until then the gateway only publishes: no
   * device message is taken before something can handle it (a worker process never listens).
   */
  listen(onMessage: MessageHandler, filter = SERVICE_SUBSCRIPTION): void {
    if (this.#handler) throw new Error("The gateway already has a message handler");
    this.#handler = onMessage;
    this.#filter = filter;
    if (this.#client?.connected) this.subscribe(this.#client);
  }

  /** Connects (waiting up to `waitMs` for the first CONNACK) and keeps reconnecting after. */
  async connect(target: BrokerTarget, waitMs = 5_000): Promise<void> {
    if (this.#client) throw new Error("The gateway is already connected");
    const client = mqtt.connect(target.url, {
      clientId: `dds-service-${crypto.randomUUID().slice(0, 8)}`,
      username: target.username,
      password: target.password,
      protocolVersion: 4,
      clean: true,
      reconnectPeriod: FIRST_RETRY_MS,
      connectTimeout: 5_000,
      keepalive: 30,
      // Numbers are written without mqtt-packet's table (packets.ts).
      writeCache: false,
    });
    this.#client = client;
    this.wire(client);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, waitMs);
      client.once("connect", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** The MQTT client, once connected (tests reach into it). */
  get client(): MqttClient | undefined {
    return this.#client;
  }

  private subscribe(client: MqttClient) {
    client.subscribe(this.#filter, { qos: 1 }, (error) => {
      if (error) this.options.onError?.("mqtt subscribe failed", { error: String(error) });
    });
  }

  private wire(client: MqttClient) {
    const { options } = this;
    client.on("connect", () => {
      this.attempts = 0;
      client.options.reconnectPeriod = FIRST_RETRY_MS;
      // STACK.md: Nagle on the client stream delays every QoS 1 exchange by ~44 ms.
      (client.stream as unknown as Socket)?.setNoDelay?.(true);
      if (this.#handler) this.subscribe(client);
    });
    client.on("close", () => {
      client.options.reconnectPeriod = backoffDelay(this.attempts++);
    });
    client.on("error", (error) => options.onError?.("mqtt error", { error: String(error) }));
    client.on("message", (topic, payload) => {
      const parsed = parseTopic(topic);
      if (!parsed || !parsed.channel.startsWith("up/")) return;
      options.metrics?.mqttMessage("in", parsed.channel);
      if (payload.byteLength > MAX_UP_PAYLOAD_BYTES) {
        return this.noteDropped(parsed.thingName, "oversize");
      }
      if (ASKING.has(parsed.channel) && this.overloaded()) {
        this.noteDropped(parsed.thingName, "backlog_wait");
        return this.answerBusy(parsed.thingName);
      }
      const result = this.inbound.push(
        parsed.thingName,
        { ...parsed, payload },
        payload.byteLength,
      );
      // One device's own backlog full: its earlier requests are still answered.
      if (result === "thing_full") this.noteDropped(parsed.thingName, "device_backlog");
      else if (result === "full") {
        this.noteDropped(parsed.thingName, "backlog_full");
        if (ASKING.has(parsed.channel)) this.answerBusy(parsed.thingName);
      }
    });
  }

  /** True when a request queued now would wait past `MAX_WAIT_SECONDS` (tests lower it). */
  private overloaded(): boolean {
    const { minBacklog, maxWaitSeconds } = this.options.shedding ??
      { minBacklog: SHED_MIN_BACKLOG, maxWaitSeconds: MAX_WAIT_SECONDS };
    return this.inbound.size >= minBacklog &&
      this.inbound.expectedWaitSeconds() > maxWaitSeconds;
  }

  /**
   * Sheds a request: tells the device to ask again later rather than leave it waiting for an
   * answer that never comes. The answers in flight are bounded, so a flood of requests through
   * an external broker (which passes anything) cannot make the service hold one each.
   */
  private answerBusy(thingName: string) {
    if (this.busyInFlight >= MAX_BUSY_IN_FLIGHT || !this.connected) {
      this.options.metrics?.mqttBusy("skipped");
      return;
    }
    this.busyInFlight++;
    this.publish(thingName, "down/push", busyAnswer()).then(
      () => this.options.metrics?.mqttBusy("sent"),
      () => this.options.metrics?.mqttBusy("skipped"),
    ).finally(() => this.busyInFlight--);
  }

  private noteDropped(thingName: string, reason: MqttDropReason) {
    this.options.metrics?.mqttDropped(reason);
    this.dropped++;
    const now = Date.now();
    if (now - this.lastDropLog < DROP_LOG_MS) return;
    this.options.onError?.("mqtt messages dropped (oversize or backlog full)", {
      count: this.dropped,
      lastThingName: thingName,
      lastReason: reason,
    });
    this.dropped = 0;
    this.lastDropLog = now;
  }

  /** Device messages accepted and waiting for their handler (tests watch it drain). */
  get backlog(): number {
    return this.inbound.size;
  }

  /** True while the client holds a session with the broker. */
  get connected(): boolean {
    return this.#client?.connected ?? false;
  }

  /** Fails fast with 503 when the broker is not reachable (checked before any state change). */
  assertConnected(): void {
    if (!this.connected) {
      throw new AppError(
        "unavailable",
        "Device messaging is unavailable: the MQTT broker is unreachable",
      );
    }
  }

  /**
   * Publishes JSON to `devices/{thingName}/{channel}` at QoS 1 and resolves on the broker's
   * PUBACK; rejects with 503 when disconnected, on error, or when no PUBACK comes in time.
   */
  async publish(thingName: string, channel: string, body: unknown): Promise<void> {
    // Async, so a disconnected client rejects (callers chain `.catch`) rather than throws.
    this.assertConnected();
    const timeoutMs = this.options.publishTimeoutMs ?? 5_000;
    return await new Promise((resolve, reject) => {
      const fail = () =>
        reject(new AppError("unavailable", "Message was not acknowledged by the MQTT broker"));
      const timer = setTimeout(fail, timeoutMs);
      this.#client!.publish(
        topicOf(thingName, channel),
        JSON.stringify(body),
        { qos: 1 },
        (error) => {
          clearTimeout(timer);
          if (error) return fail();
          this.options.metrics?.mqttMessage("out", channel);
          resolve();
        },
      );
    });
  }

  async close(): Promise<void> {
    await this.#client?.endAsync(true);
  }
}
