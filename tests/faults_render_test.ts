/**
 * Issue 13, faults: a render worker dies mid-job. The test stops the worker threads from outside
 * right after the push's render was handed to them (no crash switch exists in the service): the
 * render job fails, pg-boss retries it, the retry renders on the replacement workers, and the
 * pool keeps its size and keeps serving.
 */
import { assert, expectStatus } from "./helpers/assert.ts";
import { customPush, greyPng } from "./helpers/custom_push.ts";
import { createDevice, pushRow } from "./helpers/devices.ts";
import { client, registerUser } from "./helpers/http.ts";
import { eventually } from "./helpers/mqtt.ts";
import { startTestServer } from "./helpers/server.ts";
import type { RenderPool } from "../src/infra/render/pool.ts";

Deno.test({
  name: "faults: a render worker dies mid-job: the job is retried, the pool replaces the worker",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const server = await startTestServer();
    const api = client(server.url);
    try {
      const pool = server.app.services.renderer as RenderPool;
      // No worker rests in the service (issue 40): one render first, so one is up and warm, and
      // the one stopped below dies mid-render, not while starting.
      await pool.renderImage(greyPng());
      const size = pool.threads;
      assert.ok(size > 0);
      const killed: number[] = [];
      const renderImage = pool.renderImage.bind(pool);
      // The first render is dispatched, then every worker thread is stopped under it.
      pool.renderImage = (source, options) => {
        const rendering = renderImage(source, options);
        if (killed.length === 0) {
          for (const worker of pool.workerThreads) killed.push(0), void worker.terminate();
        }
        return rendering;
      };

      const user = await registerUser(api, "renderfault");
      const token = user.accessToken;
      const device = await createDevice(server, user.user.id);
      const pushId = await customPush(api, token, device.id);

      const rendered = await eventually(async () => {
        const row = await pushRow(server, pushId);
        return row.status === "QUEUE" ? row : null;
      }, "the retried render");
      assert.equal(killed.length, size, "every worker was stopped during the first attempt");
      // The first attempt failed with the worker, the second rendered.
      assert.equal(rendered.render_attempts, 2);
      assert.equal(rendered.render_error, null);

      // The pool replaced its workers and serves as before.
      await eventually(() => Promise.resolve(pool.threads === size && pool.alive), "replaced");
      expectStatus(await api.get("/ready"), 200);
      const again = await pool.renderImage(greyPng());
      assert.equal(again.raw2.byteLength, 48_000);
    } finally {
      await server.close();
    }
  },
});
