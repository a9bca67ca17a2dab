/**
 * A Kysely dialect that reports how many connections the service holds. postgres.js has no
 * public pool gauge, but every query and transaction of Kysely takes a connection from the
 * driver and gives it back: counting those is exactly "pool in use" (and, on PGlite, whether
 * its one connection is busy). pg-boss's own small pool on PostgreSQL is not counted.
 */
import type { DatabaseConnection, Dialect, Driver } from "kysely";
import type { Metrics } from "../metrics/metrics.ts";

/** Wraps `dialect` so its driver reports taken, returned and awaited connections. */
export function countingDialect(dialect: Dialect, metrics: Metrics): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => countingDriver(dialect.createDriver(), metrics),
  };
}

function countingDriver(driver: Driver, metrics: Metrics): Driver {
  async function acquireConnection(): Promise<DatabaseConnection> {
    metrics.dbWaiting(1);
    let connection: DatabaseConnection;
    try {
      connection = await driver.acquireConnection();
    } finally {
      metrics.dbWaiting(-1);
    }
    metrics.dbConnection(1);
    return connection;
  }
  async function releaseConnection(connection: DatabaseConnection): Promise<void> {
    try {
      await driver.releaseConnection(connection);
    } finally {
      metrics.dbConnection(-1);
    }
  }
  // Every other method (transactions, savepoints, init, destroy) is the driver's own, called on
  // the driver itself so its private state stays reachable.
  return new Proxy(driver, {
    get(target, prop) {
      if (prop === "acquireConnection") return acquireConnection;
      if (prop === "releaseConnection") return releaseConnection;
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
