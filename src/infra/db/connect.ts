/**
 * Opens the database: postgres.js when a URL is configured, otherwise the embedded PGlite
 * (PostgreSQL compiled to WASM) persisted under `DATA_DIR/pg`.
 */
import { CompiledQuery, type DatabaseConnection, type Dialect, Kysely } from "kysely";
import { PostgresJSDialect } from "kysely-postgres-js";
import { PGliteDialect } from "kysely-pglite-dialect";
import { PGlite } from "@electric-sql/pglite";
import postgres from "postgres";
import { lockDirectory } from "./dir_lock.ts";
import { initInChild } from "./pglite_init.ts";
import {
  clearPartial,
  copyFromTemplate,
  hasCluster,
  saveTemplate,
  templateName,
  templateRoot,
} from "./pglite_template.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { QueueSettings } from "../jobs/types.ts";
import { countingDialect } from "./counting_dialect.ts";
import { writeTrackingDialect } from "./cache/write_tracking.ts";

/** An open database; `kind` tells which engine serves it. */
export interface Connection<DB> {
  db: Kysely<DB>;
  kind: "postgres" | "pglite";
  /** The embedded engine, for adapters (pg-boss) that talk to it directly. */
  pglite?: PGlite;
  /**
   * Opens every connection of the pool now (issue 26): on the first burst after a start, 64
   * requests at once waited on ten connection handshakes. Nothing to do for PGlite.
   */
  warm(): Promise<void>;
  close(): Promise<void>;
}

/** Connection options: a server URL, or a directory (or `memory://`) for the embedded engine. */
export interface ConnectOptions {
  url?: string;
  dataDir: string;
  poolSize?: number;
  /** Where connections in use are reported (`/metrics`). */
  metrics?: Metrics;
  /**
   * Told after every statement that may have changed rows (PostgreSQL), so the caches of this
   * process read their own writes (src/infra/db/cache/).
   */
  onWrite?: () => void;
  /**
   * How long opening a server connection may take before the query fails (and the request
   * answers 503). postgres.js waits 30 s by default; an unreachable server must fail fast.
   */
  connectTimeoutSeconds?: number;
  /**
   * A fresh embedded cluster gets pg-boss's schema and these queues before the service opens it
   * (and before it is saved as the template): made in the service's process they grew PGlite's
   * memory by 25-50 MB for the process's life (issue 26).
   */
  jobQueues?: QueueSettings[];
}

/** Default of `connectTimeoutSeconds`: a healthy server on a network answers well within it. */
export const CONNECT_TIMEOUT_SECONDS = 3;

/** Seconds a closing pool waits for running queries before it closes their connections. */
const SHUTDOWN_GRACE_SECONDS = 5;

/**
 * The embedded engine's settings. PostgreSQL's default 128 MB of shared buffers are all resident
 * in PGlite's WebAssembly memory from the start (issue 26: 249 -> 127 MB at open with 16 MB); the
 * files underneath stay in the operating system's page cache, and the request path reads
 * through the service's own caches (src/infra/db/cache/).
 */
const PGLITE_CONF = ["shared_buffers = 16MB"];

/** Opens a connection as configured; callers own it and must `close()` it. */
export async function connect<DB>(options: ConnectOptions): Promise<Connection<DB>> {
  if (options.url) {
    const max = options.poolSize ?? 10;
    const client = postgres(options.url, {
      max,
      onnotice: () => {},
      connect_timeout: options.connectTimeoutSeconds ?? CONNECT_TIMEOUT_SECONDS,
      // Seconds before a closed connection may connect again. postgres.js's default grows to 20 s
      // after a few failures, and a request waits that long for its connection: during an outage
      // every request hung instead of answering 503, and after it the service came back late.
      backoff: (retries: number) => Math.min(0.05 * retries, 0.25),
    });
    options.metrics?.dbPoolSize(max);
    let dialect = counted(
      plainRollback(new PostgresJSDialect({ postgres: client })),
      options.metrics,
    );
    if (options.onWrite) dialect = writeTrackingDialect(dialect, options.onWrite);
    const db = new Kysely<DB>({ dialect });
    return {
      db,
      kind: "postgres",
      warm: async () => {
        // Queries at once take a connection each: postgres.js opens up to `max`, and keeps them.
        await Promise.all(Array.from({ length: max }, () => client`SELECT 1`));
      },
      // Queries still running get SHUTDOWN_GRACE_SECONDS, then their connections are closed:
      // a connection that is never released (a reserved one a stopping worker left) must not
      // hold shutdown forever. Kysely's destroy then finds postgres.js already ended.
      close: async () => {
        await client.end({ timeout: SHUTDOWN_GRACE_SECONDS });
        await db.destroy();
      },
    };
  }
  const dir = options.dataDir === "memory://" ? "memory://" : `${options.dataDir}/pg`;
  let unlock = () => Promise.resolve();
  if (dir !== "memory://") {
    await Deno.mkdir(dir, { recursive: true });
    unlock = await lockDirectory(dir);
  }
  let pglite: PGlite;
  try {
    if (dir !== "memory://" && !await hasCluster(dir)) {
      // Settings only: a queue definition also carries its payload's schema.
      const queues = (options.jobQueues ?? []).map(({ name, retry, policy, expireInSeconds }) => ({
        name,
        retry,
        policy,
        expireInSeconds,
      }));
      await createCluster(dir, queues);
    }
    pglite = await PGlite.create(dir, { postgresqlconf: PGLITE_CONF });
  } catch (error) {
    await unlock();
    throw error;
  }
  options.metrics?.dbPoolSize(1);
  const db = new Kysely<DB>({ dialect: counted(new PGliteDialect(pglite), options.metrics) });
  return {
    db,
    kind: "pglite",
    pglite,
    warm: () => Promise.resolve(),
    close: async () => {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
      await unlock();
    },
  };
}

/**
 * A fresh directory's cluster: a copy of the template when this machine has one, else PGlite's
 * initdb, the migrations and the jobs' schema and queues in a child process, then saved as the
 * template (pglite_template.ts).
 */
async function createCluster(dir: string, queues: QueueSettings[]): Promise<void> {
  await clearPartial(dir);
  const root = templateRoot();
  const name = root ? await templateName(undefined, queues) : undefined;
  if (root && name) {
    try {
      if (await copyFromTemplate(root, name, dir)) return;
    } catch {
      // Removed by a process that saved a newer one while this copy ran: make it as before.
      await clearPartial(dir);
    }
  }
  await initInChild(dir, queues);
  if (root && name) await saveTemplate(root, name, dir);
}

function counted(dialect: Dialect, metrics: Metrics | undefined): Dialect {
  return metrics ? countingDialect(dialect, metrics) : dialect;
}

/**
 * kysely-postgres-js 5 on Kysely 0.29: when ROLLBACK fails (the server went away mid-transaction)
 * Kysely's PostgreSQL driver marks the connection discarded through a method postgres.js
 * connections lack, so the caller got a TypeError (a 500) instead of the connection error (a
 * 503). The rollback here just lets that error through; postgres.js retires the dead connection
 * itself (vendor/postgres/README.md).
 */
function plainRollback(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () =>
      new Proxy(dialect.createDriver(), {
        get(target, prop) {
          if (prop === "rollbackTransaction") {
            return async (connection: DatabaseConnection) => {
              await connection.executeQuery(CompiledQuery.raw("rollback"));
            };
          }
          const value = Reflect.get(target, prop, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }),
  };
}
