// deno-lint-ignore-file no-explicit-any -- replies are untyped JSON; tests assert their shape
/**
 * SPEC 8 targetless limits with their settings: pixels per rendition, renditions per
 * presentation (409 `invalid_state`, initial ones included) and concurrent preparing renditions
 * per user (429 `rate_limited` with Retry-After, never for a dedup hit), counted in the database
 * so they hold across several service processes (real PostgreSQL).
 */
import postgres from "postgres";
import { assert, assertEquals, expectStatus } from "./helpers/assert.ts";
import { client } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { externalDatabaseUrl, startTestServer, type TestServer } from "./helpers/server.ts";
import { uuidv7 } from "../src/infra/lib/ids.ts";
import {
  type Account,
  account,
  expectCode,
  hardcodePresentation,
  poll,
  testPng,
  upload,
} from "./helpers/targetless.ts";
import { eventually } from "./helpers/mqtt.ts";
import { renderRenditionQueue } from "../src/domains/targetless/queues.ts";

const LIMITS = {
  TARGETLESS_MAX_RENDITION_PIXELS: "250000",
  TARGETLESS_MAX_RENDITIONS_PER_PRESENTATION: "4",
  TARGETLESS_MAX_CONCURRENT_RENDITIONS: "2",
};
const suite = serverSuite("targetless limits", LIMITS);

/** Inserts renditions that stay `preparing` (no job renders them). */
async function preparing(s: TestServer, acct: Account, presentationId: string, sizes: number[]) {
  for (const size of sizes) {
    await s.app.services.db.insertInto("renditions").values({
      id: uuidv7(),
      presentation_id: presentationId,
      user_id: acct.userId,
      format: "png",
      width: size,
      height: size,
      color_mode: "color",
      initial: false,
      state: "preparing",
    }).execute();
  }
}

const add = (acct: Account, id: string, width: number, height = width, mount = acct.sdk) =>
  acct.call(mount, "POST", `/presentations/${id}/renditions`, { body: { width, height } });

suite.test("TARGETLESS_MAX_RENDITION_PIXELS bounds viewports, presets and renditions", async (api) => {
  const acct = await account(api);
  const body = (output: unknown) => ({
    body: {
      mode: "hardcode",
      output,
      assets: [{ type: "image", contentType: "image/png", sizeBytes: 10 }],
    },
  });
  for (const mount of [acct.app, acct.sdk]) {
    const over = expectCode(
      await acct.call(mount, "POST", "/contents", body({ viewport: { width: 500, height: 501 } })),
      400,
      "invalid_request",
    );
    assert.match(over.message, /over the limit of 250000 pixels/);
    // The 800x480 default is over this setting too.
    expectCode(await acct.call(mount, "POST", "/contents", body({})), 400, "invalid_request");
    expectStatus(
      await acct.call(mount, "POST", "/contents", body({ viewport: { width: 500, height: 500 } })),
      201,
    );
  }
  const { presentation } = await hardcodePresentation(acct, acct.app, {
    viewport: { width: 20, height: 20 },
  });
  expectCode(await add(acct, presentation.id, 501, 500), 400, "invalid_request");
  expectStatus(await add(acct, presentation.id, 500, 500), 202);
});

suite.test("renditions per presentation: the initial one counts; over it 409, dedup answered", async (api) => {
  const acct = await account(api);
  const { presentation } = await hardcodePresentation(acct, acct.sdk, {
    viewport: { width: 20, height: 20 },
  });
  const ids: string[] = [];
  for (const size of [10, 11, 12]) {
    ids.push(expectStatus(await add(acct, presentation.id, size), 202).id);
    // One at a time, so the concurrent limit stays out of the way.
    await poll(
      acct,
      acct.sdk,
      `/presentations/${presentation.id}`,
      (p) => p.renditions.every((r: any) => r.state !== "preparing"),
    );
  }
  for (const mount of [acct.app, acct.sdk]) {
    const error = expectCode(await add(acct, presentation.id, 13, 13, mount), 409, "invalid_state");
    assert.match(error.message, /limit of 4/);
    // The limit is permanent, and a size the presentation has is still answered.
    assertEquals(expectStatus(await add(acct, presentation.id, 11, 11, mount), 202).id, ids[1]);
  }
});

suite.test(
  "concurrent preparing renditions: 429 with Retry-After past the limit, never on dedup",
  async (api, s) => {
    const acct = await account(api);
    const { presentation } = await hardcodePresentation(acct, acct.app, {
      viewport: { width: 20, height: 20 },
    });
    const other = await hardcodePresentation(acct, acct.app, {
      viewport: { width: 30, height: 20 },
    });
    // Two renditions of the user are still preparing (on another presentation).
    await preparing(s, acct, other.presentation.id, [7, 8]);
    for (const mount of [acct.app, acct.sdk]) {
      const reply = await add(acct, presentation.id, 9, 9, mount);
      expectCode(reply, 429, "rate_limited");
      assertEquals(reply.headers.get("retry-after"), "2");
      // A dedup hit of a preparing rendition is not limited.
      assertEquals(
        expectStatus(await add(acct, other.presentation.id, 8, 8, mount), 202).state,
        "preparing",
      );
    }
    // Another user is not limited by this one's renditions.
    const stranger = await account(api);
    const theirs = await hardcodePresentation(stranger, stranger.sdk, {
      viewport: { width: 20, height: 20 },
    });
    expectStatus(await add(stranger, theirs.presentation.id, 9), 202);
    // Once they are done, there is room again.
    await s.app.services.db.updateTable("renditions").set({ state: "failed" })
      .where("presentation_id", "=", other.presentation.id).where("state", "=", "preparing")
      .execute();
    expectStatus(await add(acct, presentation.id, 9), 202);
  },
);

suite.test(
  "initial renditions of new contents wait for a free slot: accepted, never over the limit",
  async (api, s) => {
    const acct = await account(api);
    const db = s.app.services.db;
    const { presentation } = await hardcodePresentation(acct, acct.app, {
      viewport: { width: 20, height: 20 },
    });
    // Both slots are taken: two renditions preparing, no job renders them yet.
    await preparing(s, acct, presentation.id, [7, 8]);
    const held = await db.selectFrom("renditions").select("id")
      .where("presentation_id", "=", presentation.id).where("state", "=", "preparing").execute();
    // Three new contents at once: each is accepted, none of their renditions starts.
    const png = testPng(20, 20);
    const contents = await Promise.all([1, 2, 3].map(async () => {
      const created = expectStatus(
        await acct.call(acct.sdk, "POST", "/contents", {
          body: {
            mode: "hardcode",
            output: { viewport: { width: 20, height: 20 } },
            assets: [{ type: "image", contentType: "image/png", sizeBytes: png.length }],
          },
        }),
        201,
      );
      assertEquals(await upload(created.assets[0].upload, png), 204);
      expectStatus(await acct.call(acct.sdk, "POST", `/contents/${created.id}/confirm`), 202);
      return await poll(acct, acct.sdk, `/contents/${created.id}`, (c) => c.state === "ready");
    }));
    const ids = contents.map((c) => c.presentationIds[0] as string);
    const shown = async () =>
      await Promise.all(ids.map(async (id) => {
        const reply = await acct.call(acct.sdk, "GET", `/presentations/${id}`);
        return expectStatus(reply, 200);
      }));
    // A 20x20 rendition takes milliseconds: had one started, it would be done by now.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const p of await shown()) {
      assertEquals(p.state, "preparing");
      assertEquals(p.renditions.map((r: any) => r.state), ["preparing"]);
    }
    // An explicit request still gets its 429 meanwhile.
    expectCode(await add(acct, presentation.id, 9), 429, "rate_limited");
    // The held renditions are rendered (their jobs sent now): as each finishes, the oldest
    // waiting one starts, never more than two at once, until every presentation is ready.
    for (const { id } of held) {
      await s.app.services.jobs.send(renderRenditionQueue, { renditionId: id });
    }
    let most = 0;
    await eventually(async () => {
      const { n } = await db.selectFrom("renditions").select((eb) =>
        eb.fn.countAll<string>().as("n")
      )
        .where("user_id", "=", acct.userId).where("state", "=", "preparing")
        .where("waiting", "=", false).executeTakeFirstOrThrow();
      most = Math.max(most, Number(n));
      return (await shown()).every((p) => p.state === "ready");
    }, "every presentation ready");
    assert.ok(most <= 2, `${most} renditions were rendering at once`);
    for (const p of await shown()) assertEquals(p.renditions.map((r: any) => r.state), ["ready"]);
  },
);

suite.end();

Deno.test({
  name: "targetless limits: they hold across two service processes on one database",
  ignore: !externalDatabaseUrl,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const first = await startTestServer(LIMITS);
    const second = await startTestServer({ ...LIMITS, DATABASE_URL: first.env.DATABASE_URL });
    const apis = [client(first.url), client(second.url)];
    const sql = postgres(first.env.DATABASE_URL, { max: 1, onnotice: () => {} });
    try {
      const acct = await account(apis[0]);
      const { presentation } = await hardcodePresentation(acct, acct.sdk, {
        viewport: { width: 20, height: 20 },
      });
      // The same account, calling through the first or the second process.
      const on = (i: number): Account => ({
        ...acct,
        call: (mount, method, path, options = {}) => {
          const api = apis[i % 2];
          const fn = method === "POST" ? api.post : api.get;
          return fn(`${mount.prefix}${path}`, { token: mount.token, ...options });
        },
      });
      // Hold the presentation row: renditions are accepted but cannot finish meanwhile.
      let release = () => {};
      const held = new Promise<void>((resolve) => release = resolve);
      let locked = () => {};
      const isLocked = new Promise<void>((resolve) => locked = resolve);
      const holder = sql.begin(async (tx) => {
        await tx`select id from presentations where id = ${presentation.id} for no key update`;
        locked();
        await held;
      });
      await isLocked;
      try {
        // Identical requests through both processes: one rendition.
        const same = await Promise.all(
          Array.from({ length: 6 }, (_, i) => add(on(i), presentation.id, 15)),
        );
        assertEquals(new Set(same.map((r) => expectStatus(r, 202).id)).size, 1);
        // Distinct sizes through both processes: one more fits the concurrent limit of 2.
        const distinct = await Promise.all(
          Array.from({ length: 8 }, (_, i) => add(on(i), presentation.id, 30 + i)),
        );
        const statuses = distinct.map((r) => r.status).sort();
        assertEquals(statuses, [202, 429, 429, 429, 429, 429, 429, 429]);
      } finally {
        release();
        await holder;
      }
      await poll(
        acct,
        acct.sdk,
        `/presentations/${presentation.id}`,
        (p) => p.renditions.every((r: any) => r.state !== "preparing"),
      );
      // Three renditions now; the per-presentation limit of 4 lets exactly one more in.
      const last = await Promise.all(
        Array.from({ length: 6 }, (_, i) => add(on(i), presentation.id, 50 + i)),
      );
      assertEquals(last.map((r) => r.status).sort(), [202, 409, 409, 409, 409, 409]);
    } finally {
      await sql.end();
      await second.close();
      await first.close();
    }
  },
});

Deno.test({
  name: "targetless limits: initial renditions made by two processes at once stay under the limit",
  ignore: !externalDatabaseUrl,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const first = await startTestServer(LIMITS);
    const second = await startTestServer({ ...LIMITS, DATABASE_URL: first.env.DATABASE_URL });
    const apis = [client(first.url), client(second.url)];
    const sql = postgres(first.env.DATABASE_URL, { max: 1, onnotice: () => {} });
    try {
      const acct = await account(apis[0]);
      const { presentation } = await hardcodePresentation(acct, acct.sdk, {
        viewport: { width: 20, height: 20 },
      });
      // One of the two slots is taken for the whole test: one rendition at a time may render.
      await preparing(first, acct, presentation.id, [7]);
      const rendering = async () =>
        Number(
          (await sql`select count(*) as n from renditions where user_id = ${acct.userId}
          and state = 'preparing' and not waiting`)[0].n,
        );
      const png = testPng(20, 20);
      // Eight contents confirmed at once through both processes: their generation jobs run in
      // both, each trying to start its rendition in the one free slot.
      const made = Promise.all(Array.from({ length: 8 }, async (_, i) => {
        const api = apis[i % 2];
        const created = expectStatus(
          await api.post("/api/sdk/v1/contents", {
            token: acct.pat,
            body: {
              mode: "hardcode",
              output: { viewport: { width: 20 + i, height: 20 } },
              assets: [{ type: "image", contentType: "image/png", sizeBytes: png.length }],
            },
          }),
          201,
        );
        assertEquals(await upload(created.assets[0].upload, png), 204);
        expectStatus(
          await api.post(`/api/sdk/v1/contents/${created.id}/confirm`, { token: acct.pat }),
          202,
        );
        return created.id as string;
      }));
      let most = 0;
      let done = false;
      const sampler = (async () => {
        while (!done) {
          most = Math.max(most, await rendering());
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      })();
      const ids = await made;
      try {
        for (const id of ids) {
          const content = await poll(
            acct,
            acct.sdk,
            `/contents/${id}`,
            (c) => c.state !== "processing",
          );
          assertEquals(content.state, "ready");
          await poll(
            acct,
            acct.sdk,
            `/presentations/${content.presentationIds[0]}`,
            (p) => p.state === "ready",
          );
        }
      } finally {
        done = true;
        await sampler;
      }
      assert.ok(most <= 2, `${most} renditions were rendering at once`);
      assertEquals(await rendering(), 1);
    } finally {
      await sql.end();
      await second.close();
      await first.close();
    }
  },
});
