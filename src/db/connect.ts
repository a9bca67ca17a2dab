/**
 * Opens the database: postgres.js when a URL is configured, otherwise the embedded PGlite
 * (PostgreSQL compiled to WASM) persisted under `DATA_DIR/pg`.
 */
import { Kysely } from "kysely";
import { PostgresJSDialect } from "kysely-postgres-js";
import { PGliteDialect } from "kysely-pglite-dialect";
import { PGlite } from "@electric-sql/pglite";
import postgres from "postgres";
import { lockDirectory } from "./dir_lock.ts";

/** An open database; `kind` tells which engine serves it. */
export interface Connection<DB> {
  db: Kysely<DB>;
  kind: "postgres" | "pglite";
  /** The embedded engine, for adapters (pg-boss) that talk to it directly. */
  pglite?: PGlite;
  close(): Promise<void>;
}

/** Connection options: a server URL, or a directory (or `memory://`) for the embedded engine. */
export interface ConnectOptions {
  url?: string;
  dataDir: string;
  poolSize?: number;
}

/** Opens a connection as configured; callers own it and must `close()` it. */
export async function connect<DB>(options: ConnectOptions): Promise<Connection<DB>> {
  if (options.url) {
    const client = postgres(options.url, {
      max: options.poolSize ?? 10,
      onnotice: () => {},
    });
    const db = new Kysely<DB>({ dialect: new PostgresJSDialect({ postgres: client }) });
    return {
      db,
      kind: "postgres",
      close: () => db.destroy(),
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
    pglite = await PGlite.create(dir);
  } catch (error) {
    await unlock();
    throw error;
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: "pglite",
    pglite,
    close: async () => {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
      await unlock();
    },
  };
}
