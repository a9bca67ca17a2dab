/**
 * Background jobs as the domains see them; pg-boss on the same PostgreSQL behind it. A domain
 * declares each of its queues once (`defineQueue`: name, payload schema, retry policy) and lists
 * it with its handler in its face (`queueOf`, src/face.ts); the service sends to a queue, often
 * inside the transaction that makes the work necessary, and a worker registers one handler per
 * queue at start-up.
 */
import type { z } from "zod";
import type { Trx } from "../../schema.ts";

/** How a failing job is retried: `limit` retries after the first try, exponential backoff. */
export interface RetryPolicy {
  limit: number;
  /** Delay before the first retry, doubling (with jitter) each time. */
  delaySeconds: number;
  /** Cap on the backoff delay. */
  maxDelaySeconds: number;
}

/**
 * pg-boss queue policies. `exclusive` allows one job queued or running per `singletonKey` (one
 * analyze run per user); `short`, `singleton` and `stately` limit queued or running jobs alike.
 */
export type QueuePolicy = "standard" | "short" | "singleton" | "stately" | "exclusive";

/** One kind of background work, declared by the domain that owns it. */
export interface QueueDefinition<T> {
  name: string;
  /** Validates every payload sent and received: a worker never trusts a row it did not write. */
  schema: z.ZodType<T>;
  retry: RetryPolicy;
  policy: QueuePolicy;
  /** A running job is failed (and retried) after this long. */
  expireInSeconds: number;
}

/** What pg-boss keeps of a queue: its name and settings, without the payload's schema. */
export type QueueSettings = Pick<
  QueueDefinition<unknown>,
  "name" | "retry" | "policy" | "expireInSeconds"
>;

/** The default retry policy: 4 retries, 5 s doubling up to 5 minutes. */
export const DEFAULT_RETRY: RetryPolicy = { limit: 4, delaySeconds: 5, maxDelaySeconds: 300 };

/** Declares a queue; omitted settings take the defaults. */
export function defineQueue<T>(
  definition: Pick<QueueDefinition<T>, "name" | "schema"> & Partial<QueueDefinition<T>>,
): QueueDefinition<T> {
  return {
    retry: DEFAULT_RETRY,
    policy: "standard",
    expireInSeconds: 300,
    ...definition,
  };
}

/** Which try of a job this is; on the `final` one a throw fails the job for good. */
export interface Attempt {
  /** 1 for the first run, 2 for the first retry, ... */
  number: number;
  /** No retry follows if this attempt throws: record the failure now. */
  final: boolean;
}

export interface SendOptions {
  /** Enqueue inside this transaction: the job exists only if it commits. */
  trx?: Trx;
  /** With a `singleton`/`stately` queue: at most one queued job per key. */
  singletonKey?: string;
  /** Run no earlier than this many seconds from now. */
  startAfterSeconds?: number;
  /**
   * Workers take higher priorities first, then older jobs (default 0; negative is later). A
   * retry keeps its job's priority.
   */
  priority?: number;
}

export interface WorkOptions {
  /** Jobs of this queue run at once in this process. Default 1. */
  concurrency?: number;
}

/** A job handler; a throw means retry with backoff, until the attempt marked `final`. */
export type JobHandler<T> = (data: T, attempt: Attempt) => Promise<void>;

export interface Jobs {
  /**
   * Enqueues a job; the payload is validated against the queue's schema first. Returns the job
   * id, or null when a singleton queue already holds a job for the key.
   */
  send<T>(queue: QueueDefinition<T>, data: T, options?: SendOptions): Promise<string | null>;
  /** Registers the handler of a queue; register once, at start-up. */
  work<T>(queue: QueueDefinition<T>, handler: JobHandler<T>, options?: WorkOptions): Promise<void>;
  /** Sends `data` to the queue on a cron schedule (minute-grained), once across processes. */
  schedule<T>(queue: QueueDefinition<T>, cron: string, data: T): Promise<void>;
  stop(): Promise<void>;
}
