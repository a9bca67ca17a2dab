import { z } from "zod";
import { assertEquals } from "../../../tests/helpers/assert.ts";
import { connect } from "../db/connect.ts";
import { embeddedBoss, prepareQueues } from "./install.ts";
import { defineQueue } from "./types.ts";

const queue = (name: string, limit: number) =>
  defineQueue({
    name,
    schema: z.object({}),
    retry: { limit, delaySeconds: 1, maxDelaySeconds: 10 },
  });

Deno.test({
  name: "prepareQueues: creates the missing queues, updates a changed one, leaves the rest",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const connection = await connect({ dataDir: "memory://" });
    const boss = embeddedBoss(connection.db, connection.pglite!);
    await boss.start();
    try {
      await prepareQueues(boss, [queue("install-a", 2)]);
      assertEquals((await boss.getQueue("install-a"))?.retryLimit, 2);
      // A restart whose declaration changed one queue's retries and added another.
      await prepareQueues(boss, [queue("install-a", 5), queue("install-b", 3)]);
      assertEquals((await boss.getQueue("install-a"))?.retryLimit, 5);
      assertEquals((await boss.getQueue("install-b"))?.retryLimit, 3);
      // Both usable at once: their sends need pg-boss's queue cache (no lookup of its own).
      assertEquals(typeof await boss.send("install-a", {}), "string");
      assertEquals(typeof await boss.send("install-b", {}), "string");
      // Unchanged: nothing to do, and still usable.
      await prepareQueues(boss, [queue("install-a", 5), queue("install-b", 3)]);
      assertEquals(typeof await boss.send("install-a", {}), "string");
    } finally {
      await boss.stop({ graceful: false, close: false });
      await connection.close();
    }
  },
});
