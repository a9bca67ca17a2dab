/**
 * Creating the jobs' queues, apart from the rest of the jobs so the child that makes a fresh
 * embedded cluster (src/infra/db/pglite_init.ts) loads pg-boss and PGlite only: no postgres.js.
 */
import type { PGlite } from "@electric-sql/pglite";
import type { Kysely } from "kysely";
import { PgBoss } from "pg-boss";
import { lockedPglite } from "./pglite_db.ts";
import type { QueueSettings } from "./types.ts";

/**
 * Installs pg-boss's schema and creates the queues in an embedded database, then stops: what a
 * fresh embedded cluster gets before it is saved as the template.
 */
export async function installJobs<D>(db: Kysely<D>, pglite: PGlite, queues: QueueSettings[]) {
  const boss = embeddedBoss(db, pglite);
  await boss.start();
  try {
    await prepareQueues(boss, queues);
  } finally {
    await boss.stop({ graceful: false, close: false });
  }
}

/** pg-boss on the embedded database, through the Kysely connection's lock (pglite_db.ts). */
export function embeddedBoss<D>(db: Kysely<D>, pglite: PGlite): PgBoss {
  return new PgBoss({ db: lockedPglite(db, pglite), backend: "pglite", useListenNotify: true });
}

/**
 * Creates the missing queues, updates those whose settings changed, and warms pg-boss's queue
 * cache for them. One read of every queue first: `start()` has cached what exists, so a restart
 * whose queues are as declared runs one statement here, not four a queue (issue 40: ~110
 * statements on the embedded database's one connection before /ready).
 */
export async function prepareQueues(boss: PgBoss, queues: QueueSettings[]): Promise<void> {
  const existing = new Map(
    (await boss.getQueues(queues.map((q) => q.name))).map((q) => [q.name, q]),
  );
  for (const queue of queues) {
    const settings = {
      retryLimit: queue.retry.limit,
      retryDelay: queue.retry.delaySeconds,
      retryBackoff: true,
      retryDelayMax: queue.retry.maxDelaySeconds,
      expireInSeconds: queue.expireInSeconds,
      notify: true,
    };
    const found = existing.get(queue.name) as Record<string, unknown> | undefined;
    if (!found) await boss.createQueue(queue.name, { ...settings, policy: queue.policy });
    else if (sameSettings(found, settings)) continue;
    else await boss.updateQueue(queue.name, settings);
    // Warm pg-boss's queue cache (a creation or an update leaves the queue out of it): a cold
    // send() looks the queue up on pg-boss's own connection, which on PGlite would wait for the
    // Kysely lock held by the caller's transaction (a deadlock) and on PostgreSQL would query
    // outside it.
    await boss.getJobById(queue.name, "00000000-0000-0000-0000-000000000000");
  }
}

/** Whether a stored queue has `settings` already (an absent setting is stored as null). */
function sameSettings(stored: Record<string, unknown>, settings: Record<string, unknown>) {
  return Object.entries(settings).every(([key, value]) =>
    (stored[key] ?? null) === (value ?? null)
  );
}
