import { assert } from "../../../tests/helpers/assert.ts";
import { CHECK_TIMEOUT_MS, Readiness, readyRoute } from "./readiness.ts";
import type { RawContext } from "./raw.ts";
import { AppError } from "../../errors.ts";

Deno.test("readiness: no components is not ready", async () => {
  assert.deepEqual(await new Readiness().report(), { ready: false, checks: {} });
});

Deno.test("readiness: every check must pass; false, a throw and a hang are unavailable", async () => {
  const readiness = new Readiness();
  let migrated = false;
  readiness.register("migrations", () => migrated);
  readiness.register("database", () => Promise.resolve(true));
  assert.deepEqual(await readiness.report(), {
    ready: false,
    checks: { migrations: "unavailable", database: "ok" },
  });
  migrated = true;
  assert.equal((await readiness.report()).ready, true);

  readiness.register("broker", () => {
    throw new Error("down");
  });
  readiness.register("render", () => new Promise<boolean>(() => {}));
  const started = performance.now();
  const report = await readiness.report();
  assert.ok(performance.now() - started < CHECK_TIMEOUT_MS + 500, "a hanging check is cut off");
  assert.deepEqual(report, {
    ready: false,
    checks: { migrations: "ok", database: "ok", broker: "unavailable", render: "unavailable" },
  });
});

Deno.test("readiness: the route answers 200 ready, or 503 naming what is unavailable", async () => {
  const readiness = new Readiness();
  let up = false;
  readiness.register("database", () => up);
  readiness.register("broker", () => true);
  const route = readyRoute(readiness);
  const ctx = { params: {}, response: { headers: {} } } as unknown as RawContext;
  await assert.rejects(
    route.handle(new Request("http://x/ready"), ctx),
    (error) =>
      error instanceof AppError && error.status === 503 &&
      error.message === "Not ready: database unavailable",
  );
  up = true;
  const ok = await route.handle(new Request("http://x/ready"), ctx);
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get("cache-control"), "no-store");
  assert.deepEqual(await ok.json(), { status: "ready", checks: { database: "ok", broker: "ok" } });
});
