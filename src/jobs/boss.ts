/**
 * Jobs on pg-boss in the service's own PostgreSQL (embedded PGlite or a server). Every queue a
 * domain declares is created (or updated) at start with its retry policy; sending inside a
 * caller's transaction makes the job part of it, so a rolled-back request never leaves a job
 * behind; workers validate each payload against the queue's schema before the handler sees it.
 */
import { fromKysely, type JobWithMetadata, PgBoss } from "pg-boss";
import type { Connection } from "../db/connect.ts";
import { lockedPglite } from "./pglite_db.ts";
import type { JobHandler, Jobs, QueueDefinition, SendOptions, WorkOptions } from "./types.ts";

export interface JobsOptions {
  /** Every queue of the service (`src/queues.ts`); each is created or updated at start. */
  // deno-lint-ignore no-explicit-any -- a list of queues of different payload types
  queues: QueueDefinition<any>[];
  /** The server URL when `connection` is PostgreSQL (pg-boss keeps its own small pool). */
  databaseUrl?: string;
  /** Idle poll interval in seconds (a NOTIFY wakes workers sooner). Default 2. */
  pollingIntervalSeconds?: number;
  /** Where pg-boss and the workers report background errors. */
  onError: (message: string, fields: Record<string, unknown>) => void;
}

/** pg-boss behind the Jobs interface; create with `createJobs`. */
export class PgBossJobs implements Jobs {
  #stopped = false;

  constructor(
    private readonly boss: PgBoss,
    private readonly options: Required<Pick<JobsOptions, "pollingIntervalSeconds" | "onError">>,
  ) {}

  async send<T>(queue: QueueDefinition<T>, data: T, options: SendOptions = {}) {
    const payload = queue.schema.parse(data);
    // With a transaction the INSERT runs on its connection: committed with it or not at all.
    // The queue cache is warm (see createJobs), so send() issues no statement outside `trx`.
    return await this.boss.send(queue.name, payload as object, {
      ...(options.trx ? { db: fromKysely(options.trx) } : {}),
      ...(options.singletonKey ? { singletonKey: options.singletonKey } : {}),
      ...(options.startAfterSeconds ? { startAfter: options.startAfterSeconds } : {}),
    });
  }

  async work<T>(queue: QueueDefinition<T>, handler: JobHandler<T>, options: WorkOptions = {}) {
    const { pollingIntervalSeconds, onError } = this.options;
    await this.boss.work(
      queue.name,
      {
        pollingIntervalSeconds,
        // NOTIFY wakes workers for new jobs only; retries become due silently, so the backstop
        // poll must stay short or a retry waits 30 s (pg-boss's default) past its backoff.
        notifyPollingIntervalSeconds: pollingIntervalSeconds,
        localConcurrency: options.concurrency ?? 1,
        batchSize: 1,
        // The job's own retry limit: jobs enqueued before a settings change keep theirs.
        includeMetadata: true,
      },
      async ([job]: JobWithMetadata<unknown>[]) => {
        const parsed = queue.schema.safeParse(job.data);
        if (!parsed.success) {
          // No retry can make a malformed payload valid: recorded, and the job completes.
          onError("job payload is invalid", {
            queue: queue.name,
            jobId: job.id,
            issue: parsed.error.issues[0]?.message,
          });
          return;
        }
        try {
          await handler(parsed.data, {
            number: job.retryCount + 1,
            final: job.retryCount >= job.retryLimit,
          });
        } finally {
          this.wake(queue.name);
        }
      },
    );
  }

  /**
   * A job of `queue` just finished, so more may be waiting: its workers fetch again now instead
   * of sleeping out the poll interval (pg-boss wakes them only for new jobs). Without this, a
   * backlog (16 renditions asked at once) drains at `concurrency` jobs per 2 s whatever the
   * render takes. A worker that finds nothing goes back to polling.
   */
  private wake(queue: string) {
    for (const worker of this.boss.getWipData()) {
      if (worker.name === queue) this.boss.notifyWorker(worker.id);
    }
  }

  async schedule<T>(queue: QueueDefinition<T>, cron: string, data: T) {
    await this.boss.schedule(queue.name, cron, queue.schema.parse(data) as object);
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    // Graceful: running handlers finish (up to 20 s) before the database closes under them.
    await this.boss.stop({ graceful: true, timeout: 20_000, close: true });
  }
}

/** Starts pg-boss (installing or migrating its schema), creates the queues, warms the cache. */
export async function createJobs<D>(
  connection: Pick<Connection<D>, "db" | "kind" | "pglite">,
  options: JobsOptions,
): Promise<PgBossJobs> {
  let boss: PgBoss;
  if (connection.kind === "pglite") {
    if (!connection.pglite) throw new Error("PGlite connection without its engine");
    boss = new PgBoss({
      db: lockedPglite(connection.db, connection.pglite),
      backend: "pglite",
      useListenNotify: true,
    });
  } else {
    if (!options.databaseUrl) throw new Error("Jobs on PostgreSQL need the database URL");
    boss = new PgBoss({ connectionString: options.databaseUrl, max: 4, useListenNotify: true });
  }
  boss.on("error", (error) => options.onError("jobs error", { error: String(error) }));
  await boss.start();
  try {
    for (const queue of options.queues) {
      const settings = {
        retryLimit: queue.retry.limit,
        retryDelay: queue.retry.delaySeconds,
        retryBackoff: true,
        retryDelayMax: queue.retry.maxDelaySeconds,
        expireInSeconds: queue.expireInSeconds,
        notify: true,
      };
      const existing = await boss.getQueue(queue.name);
      if (!existing) await boss.createQueue(queue.name, { ...settings, policy: queue.policy });
      else await boss.updateQueue(queue.name, settings);
      // Warm pg-boss's queue cache: a cold send() looks the queue up on pg-boss's own
      // connection, which on PGlite would wait for the Kysely lock held by the caller's
      // transaction (a deadlock) and on PostgreSQL would query outside it.
      await boss.getJobById(queue.name, "00000000-0000-0000-0000-000000000000");
    }
  } catch (error) {
    await boss.stop({ graceful: false, close: true }).catch(() => {});
    throw error;
  }
  return new PgBossJobs(boss, {
    pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
    onError: options.onError,
  });
}
