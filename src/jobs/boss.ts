/**
 * Jobs on pg-boss in the service's own PostgreSQL (embedded PGlite or a server): a `render`
 * queue with retries and exponential backoff. Enqueueing inside a caller's transaction makes
 * the job part of it, so a rolled-back request never leaves a job behind.
 */
import { fromKysely, type JobWithMetadata, PgBoss } from "pg-boss";
import type { Connection } from "../db/connect.ts";
import type { Trx } from "../schema.ts";
import { lockedPglite } from "./pglite_db.ts";
import type { Jobs, RenderAttempt, RenderJob } from "./types.ts";

/** Queue names; one per kind of work. */
export const QUEUES = { render: "render" } as const;

export interface JobsOptions {
  /** The server URL when `connection` is PostgreSQL (pg-boss keeps its own small pool). */
  databaseUrl?: string;
  /** Retries after the first attempt. Default 4. */
  retryLimit?: number;
  /** First retry delay in seconds, doubling with jitter each retry. Default 5. */
  retryDelaySeconds?: number;
  /** Cap on the backoff delay in seconds. Default 300. */
  retryDelayMaxSeconds?: number;
  /** Idle poll interval (a NOTIFY wakes workers sooner). Default 2. */
  pollingIntervalSeconds?: number;
  /** Render jobs run at once in this process; match the render pool's threads. Default 2. */
  renderConcurrency?: number;
  /** Where pg-boss reports background errors (failed polls, maintenance). */
  onError?: (error: unknown) => void;
}

/** pg-boss behind the Jobs interface; create with `createJobs`. */
export class PgBossJobs implements Jobs {
  #stopped = false;

  constructor(
    private readonly boss: PgBoss,
    private readonly options: Required<Omit<JobsOptions, "databaseUrl" | "onError">>,
  ) {}

  async enqueueRender(job: RenderJob, trx?: Trx): Promise<void> {
    // With a transaction the INSERT runs on its connection: committed with it or not at all.
    // The queue cache is warm (see createJobs), so send() issues no statement outside `trx`.
    await this.boss.send(QUEUES.render, { pushId: job.pushId }, trx ? { db: fromKysely(trx) } : {});
  }

  async onRender(handler: (job: RenderJob, attempt: RenderAttempt) => Promise<void>) {
    const { pollingIntervalSeconds, renderConcurrency } = this.options;
    await this.boss.work(
      QUEUES.render,
      {
        pollingIntervalSeconds,
        // NOTIFY wakes workers for new jobs only; retries become due silently, so the backstop
        // poll must stay short or a retry waits 30 s (pg-boss's default) past its backoff.
        notifyPollingIntervalSeconds: pollingIntervalSeconds,
        localConcurrency: renderConcurrency,
        batchSize: 1,
        // The job's own retry limit: jobs enqueued before a settings change keep theirs.
        includeMetadata: true,
      },
      async ([job]: JobWithMetadata<RenderJob>[]) => {
        await handler(
          { pushId: job.data.pushId },
          { number: job.retryCount + 1, final: job.retryCount >= job.retryLimit },
        );
      },
    );
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
  options: JobsOptions = {},
): Promise<PgBossJobs> {
  const settings = {
    retryLimit: options.retryLimit ?? 4,
    retryDelaySeconds: options.retryDelaySeconds ?? 5,
    retryDelayMaxSeconds: options.retryDelayMaxSeconds ?? 300,
    pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
    renderConcurrency: options.renderConcurrency ?? 2,
  };
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
  boss.on("error", options.onError ?? ((error) => console.error("jobs:", error)));
  await boss.start();
  try {
    const queue = {
      retryLimit: settings.retryLimit,
      retryDelay: settings.retryDelaySeconds,
      retryBackoff: true,
      retryDelayMax: settings.retryDelayMaxSeconds,
      expireInSeconds: 300,
      notify: true,
    };
    for (const name of Object.values(QUEUES)) {
      if (await boss.getQueue(name)) await boss.updateQueue(name, queue);
      else await boss.createQueue(name, queue);
      // Warm pg-boss's queue cache: a cold send() looks the queue up on pg-boss's own
      // connection, which on PGlite would wait for the Kysely lock held by the caller's
      // transaction (a deadlock) and on PostgreSQL would query outside it.
      await boss.getJobById(name, "00000000-0000-0000-0000-000000000000");
    }
  } catch (error) {
    await boss.stop({ graceful: false, close: true }).catch(() => {});
    throw error;
  }
  return new PgBossJobs(boss, settings);
}
