/**
 * Which statements may make the change triggers announce something, and a Kysely dialect that
 * tells the feed of each such write once it is committed (read-your-writes, feed.ts).
 */
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from "kysely";
import { DEVICE_COLUMNS, INSERTS_ANNOUNCED, UPDATES_ANNOUNCED } from "./announced.ts";

// deno-lint-ignore no-explicit-any -- Kysely's operation nodes, read structurally
type Node = any;

function tableOf(node: Node): string | undefined {
  const table = node?.kind === "AliasNode" ? node.node : node;
  return table?.kind === "TableNode" ? table.table.identifier.name : undefined;
}

/**
 * Whether a statement may make the triggers announce something: conservatively yes for anything
 * but a SELECT, an INSERT into a table without an INSERT trigger (an upsert of an announced
 * table counts) and an UPDATE of a table nothing announces, or of `devices` columns other than
 * owner and latest push (the state reports of a whole fleet). Deletes always count (their
 * cascades reach announced tables), as do raw SQL and data-modifying CTEs.
 */
export function mayAnnounce(node: Node): boolean {
  if (node.with) return true;
  switch (node.kind) {
    case "SelectQueryNode":
      return false;
    case "InsertQueryNode": {
      const table = tableOf(node.into);
      if (table === undefined) return true;
      if (INSERTS_ANNOUNCED.has(table)) return true;
      const upsert = node.onConflict !== undefined || node.onDuplicateKey !== undefined;
      return upsert && (UPDATES_ANNOUNCED.has(table) || table === "devices");
    }
    case "UpdateQueryNode": {
      const table = tableOf(node.table);
      if (table === undefined || UPDATES_ANNOUNCED.has(table)) return true;
      if (table !== "devices") return false;
      return !node.updates ||
        node.updates.some((u: Node) =>
          u.column?.kind !== "ColumnNode" || DEVICE_COLUMNS.has(u.column.column.name)
        );
    }
    default:
      return true;
  }
}

/**
 * Wraps `dialect` so `onWrite` hears of every committed statement that `mayAnnounce`: at once
 * outside a transaction, at COMMIT inside one.
 */
export function writeTrackingDialect(dialect: Dialect, onWrite: () => void): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => trackingDriver(dialect.createDriver(), onWrite),
  };
}

/** A connection handed out by the tracking driver, with its transaction state. */
interface Tracked extends DatabaseConnection {
  inner: DatabaseConnection;
  inTransaction: boolean;
  wrote: boolean;
}

function trackingDriver(driver: Driver, onWrite: () => void): Driver {
  const tracked = new WeakMap<DatabaseConnection, Tracked>();
  const wrap = (inner: DatabaseConnection): Tracked => {
    let out = tracked.get(inner);
    if (out) return out;
    const state: Tracked = {
      inner,
      inTransaction: false,
      wrote: false,
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        const announces = mayAnnounce(query.query);
        try {
          return await inner.executeQuery<R>(query);
        } finally {
          if (announces) {
            if (state.inTransaction) state.wrote = true;
            else onWrite();
          }
        }
      },
      streamQuery: (query, chunkSize) => inner.streamQuery(query, chunkSize),
    };
    tracked.set(inner, out = state);
    return out;
  };
  const innerOf = (c: DatabaseConnection) => (c as Partial<Tracked>).inner ?? c;
  return new Proxy(driver, {
    get(target, prop) {
      if (prop === "acquireConnection") {
        return async (...args: unknown[]) =>
          wrap(
            await (target.acquireConnection as (...a: unknown[]) => Promise<DatabaseConnection>)
              .apply(target, args),
          );
      }
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (
        prop === "releaseConnection" || prop === "beginTransaction" ||
        prop === "commitTransaction" || prop === "rollbackTransaction" ||
        prop === "savepoint" || prop === "rollbackToSavepoint" || prop === "releaseSavepoint"
      ) {
        return async (connection: DatabaseConnection, ...rest: unknown[]) => {
          const state = connection as Partial<Tracked>;
          if (prop === "beginTransaction") {
            state.inTransaction = true;
            state.wrote = false;
          }
          try {
            return await value.call(target, innerOf(connection), ...rest);
          } finally {
            if (prop === "commitTransaction" || prop === "rollbackTransaction") {
              const wrote = state.wrote && prop === "commitTransaction";
              state.inTransaction = false;
              state.wrote = false;
              // A failed COMMIT may still have committed; counting it is only a wasted sync.
              if (wrote) onWrite();
            }
          }
        };
      }
      return value.bind(target);
    },
  });
}
