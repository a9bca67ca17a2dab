// deno-lint-ignore-file no-explicit-any -- replies are untyped JSON; tests assert their shape
/**
 * SPEC 2.10-2.13, 3.2-3.4, 4.7 and the targetless rows of 7-9 (CONTRACT.md "Targetless
 * contents") over HTTP, on both mounts: `/api/app/v1` (user tokens, X-Renewed-Token) and
 * `/api/sdk/v1` (PATs, never X-Renewed-Token). User tokens live 1 h here, so every app response
 * is in the renewal window.
 */
import { decode as decodePng } from "fast-png";
import { deflateSync } from "node:zlib";
import { buildPng, ihdr, pngChunk } from "./helpers/bombs.ts";
import { assert, assertEquals, expectStatus } from "./helpers/assert.ts";
import type { Client } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import type { TestServer } from "./helpers/server.ts";
import { createDevice } from "./helpers/devices.ts";
import { eventually } from "./helpers/mqtt.ts";
import { runAdmin } from "../src/admin.ts";
import { json } from "../src/domains/targetless/repository.ts";
import {
  type Account,
  account,
  download,
  expectCode,
  hardcodePresentation,
  type Mount,
  newKey,
  pngInfo,
  poll,
  testPng,
  upload,
} from "./helpers/targetless.ts";

const suite = serverSuite("targetless", { ACCESS_TOKEN_EXPIRY: "1h" });
const MOUNTS = ["app", "sdk"] as const;
const CONTENT_KEYS = [
  "assets",
  "createdAt",
  "id",
  "intent",
  "mode",
  "output",
  "presentationIds",
  "state",
  "title",
  "updatedAt",
];
const PRESENTATION_KEYS = [
  "contentIds",
  "createdAt",
  "displayId",
  "failure",
  "id",
  "image",
  "mode",
  "output",
  "renditions",
  "scene",
  "state",
  "updatedAt",
];
const RENDITION_KEYS = [
  "colorMode",
  "expiresAt",
  "failure",
  "format",
  "height",
  "id",
  "mediaType",
  "state",
  "updatedAt",
  "url",
  "width",
];

/** A pro account (auto needs the plan; the gate itself is tested with webhooks below). */
async function proAccount(api: Client, s: TestServer): Promise<Account> {
  const acct = await account(api);
  const row = await s.app.services.db.selectFrom("users").select("email")
    .where("id", "=", acct.userId).executeTakeFirstOrThrow();
  await runAdmin(s.app.services.db, ["set-plan", row.email, "pro"]);
  return acct;
}

/** Rows a user has: contents, presentations, renditions, pushes, devices. */
async function counts(s: TestServer, userId: string) {
  const db = s.app.services.db;
  const n = async (table: any, column = "user_id") =>
    Number(
      (await db.selectFrom(table).select((eb: any) => eb.fn.countAll().as("n"))
        .where(column, "=", userId).executeTakeFirstOrThrow() as any).n,
    );
  return {
    contents: await n("targetless_contents"),
    presentations: await n("presentations"),
    renditions: await n("renditions"),
    pushes: await n("pushes"),
    devices: await n("devices", "owner_id"),
  };
}

/** Creates and confirms an auto content; returns the content once ready or failed. */
async function autoContent(acct: Account, mount: Mount, body: Record<string, unknown>) {
  const created = expectStatus(
    await acct.call(mount, "POST", "/contents", { body: { mode: "auto", ...body } }),
    201,
  );
  for (const asset of created.assets) {
    if (asset.type === "image") assert.equal(await upload(asset.upload, testPng(400, 300)), 204);
  }
  expectStatus(await acct.call(mount, "POST", `/contents/${created.id}/confirm`), 202);
  return await poll(acct, mount, `/contents/${created.id}`, (c) => c.state !== "processing");
}

for (const name of MOUNTS) {
  suite.test(
    `${name}: the desktop-app flow (SPEC 4.7): preset, upload, confirm, poll, download`,
    async (api, s) => {
      const acct = await proAccount(api, s);
      const mount = acct[name];
      const png = testPng(640, 480);
      const reply = await acct.call(mount, "POST", "/contents", {
        headers: { "Idempotency-Key": newKey() },
        body: {
          mode: "auto",
          intent: "A desk widget of my weekend",
          title: "Weekend",
          output: { preset: "macos-widget-medium" },
          assets: [
            { type: "text", text: "Hike at eight, lunch at the hut." },
            { type: "image", contentType: "image/png", sizeBytes: png.length, filename: "a.png" },
          ],
        },
      });
      const created = expectStatus(reply, 201);
      // SPEC 5.2/5.4: the app surface renews user tokens; the SDK surface never sends it.
      assertEquals(reply.headers.has("x-renewed-token"), name === "app");
      assertEquals(Object.keys(created).sort(), CONTENT_KEYS);
      assertEquals([created.mode, created.state, created.presentationIds], [
        "auto",
        "uploading",
        [],
      ]);
      assertEquals(created.output, {
        formats: ["scene", "png"],
        preset: "macos-widget-medium",
        viewport: { width: 360, height: 170 },
        colorMode: "color",
      });
      const ticket = created.assets[1].upload;
      assertEquals(Object.keys(ticket).sort(), ["expiresAt", "fields", "fileId", "url"]);
      assertEquals(created.assets[1].fileId, ticket.fileId);
      assert.equal(await upload(ticket, png), 204);
      const confirm = await acct.call(mount, "POST", `/contents/${created.id}/confirm`);
      assertEquals(expectStatus(confirm, 202).state, "processing");
      assertEquals(confirm.headers.has("x-renewed-token"), name === "app");
      const content = await poll(
        acct,
        mount,
        `/contents/${created.id}`,
        (c) => c.state !== "processing",
      );
      assertEquals([content.state, content.presentationIds.length], ["ready", 1]);
      assertEquals(content.assets[1].upload, null);
      const presentation = await poll(
        acct,
        mount,
        `/presentations/${content.presentationIds[0]}`,
        (p) => p.state !== "preparing",
      );
      assertEquals(Object.keys(presentation).sort(), PRESENTATION_KEYS);
      assertEquals(
        [presentation.state, presentation.mode, presentation.displayId, presentation.contentIds],
        ["ready", "auto", null, [created.id]],
      );
      assertEquals([presentation.image, presentation.failure], [null, null]);
      assertEquals(presentation.scene.mediaType, "application/vnd.service.scene+json;version=1");
      assertEquals([presentation.scene.version, presentation.scene.data.version], [1, 1]);
      assertEquals(presentation.scene.data.viewport, { width: 360, height: 170 });
      // SPEC 2.11: responses carry a signed url for each picture, storage only the fileId.
      const picture = presentation.scene.data.elements.find((e: any) => e.type === "image");
      assert.ok(picture.properties.url.startsWith("http"));
      assert.equal("fileId" in picture.properties, false);
      const stored = await s.app.services.db.selectFrom("presentations").select("scene")
        .where("id", "=", presentation.id).executeTakeFirstOrThrow() as any;
      const storedPicture = stored.scene.data.elements.find((e: any) => e.type === "image");
      assertEquals(storedPicture.properties.fileId, ticket.fileId);
      assert.equal("url" in storedPicture.properties, false);
      const [rendition] = presentation.renditions;
      assertEquals(Object.keys(rendition).sort(), RENDITION_KEYS);
      assertEquals(
        [rendition.state, rendition.width, rendition.height, rendition.colorMode, rendition.format],
        ["ready", 360, 170, "color", "png"],
      );
      const ttl = Date.parse(rendition.expiresAt) - Date.now();
      assert.ok(ttl > 14 * 60_000 && ttl <= 15 * 60_000, `ttl ${ttl}`);
      const file = await download(rendition.url);
      assertEquals([file.status, file.type], [200, "image/png"]);
      assertEquals(pngInfo(file.bytes), { width: 360, height: 170, bitDepth: 8, colorType: 2 });
      // SPEC 1.6, 4.7: generation never creates a device, a push or a device message.
      const rows = await counts(s, acct.userId);
      assertEquals([rows.pushes, rows.devices], [0, 0]);
    },
  );
}

suite.test("credentials: the other surface's credential is 403, none or a bad one 401", async (api) => {
  const acct = await account(api);
  const paths: Array<[string, string]> = [
    ["POST", "/contents"],
    ["GET", `/contents/${crypto.randomUUID()}`],
    ["POST", `/contents/${crypto.randomUUID()}/confirm`],
    ["GET", "/presentations"],
    ["GET", `/presentations/${crypto.randomUUID()}`],
    ["POST", `/presentations/${crypto.randomUUID()}/renditions`],
  ];
  for (const mount of [acct.app, acct.sdk]) {
    for (const [method, path] of paths) {
      const call = (token?: string) =>
        acct.call(mount, method, path, { token, body: method === "POST" ? {} : undefined });
      expectCode(await call(mount.wrongToken), 403, "forbidden");
      expectCode(await call(""), 401, "unauthorized");
      expectCode(await call("pat_" + "x".repeat(40)), 401, "unauthorized");
      // The SDK envelope never carries the renewal header, even for a user token.
      if (mount.name === "sdk") {
        assertEquals((await call(mount.wrongToken)).headers.has("x-renewed-token"), false);
      }
    }
  }
});

for (const name of MOUNTS) {
  suite.test(
    `${name}: every mode/output/displayId mismatch and bad output is 400 invalid_request`,
    async (api, s) => {
      const acct = await proAccount(api, s);
      const mount = acct[name];
      const device = await createDevice(s, acct.userId);
      const image = { type: "image", contentType: "image/png", sizeBytes: 100 };
      const text = { type: "text", text: "hi" };
      const bodies: Array<Record<string, unknown>> = [
        { mode: "auto", assets: [text] },
        { mode: "auto", output: null, assets: [text] },
        { mode: "auto", output: {}, displayId: device.id, assets: [text] },
        { mode: "hardcode", assets: [image] },
        { mode: "hardcode", output: {}, displayId: device.id, assets: [image] },
        { mode: "hardcode", output: {}, assets: [text] },
        { mode: "hardcode", output: {}, assets: [image, image] },
        { mode: "hardcode", output: {}, assets: [] },
        { mode: "manual", displayId: device.id, output: {}, assets: [image] },
        { mode: "manual", assets: [image] },
        { mode: "manual", displayId: null, assets: [text] },
        { mode: "manual", displayId: device.id, assets: [image, text] },
        { mode: "other", output: {}, assets: [text] },
        { output: {}, assets: [text] },
        {
          mode: "auto",
          output: { preset: "default", viewport: { width: 100, height: 100 } },
          assets: [text],
        },
        { mode: "auto", output: { preset: "macos-widget-huge" }, assets: [text] },
        { mode: "auto", output: { viewport: { width: 0, height: 100 } }, assets: [text] },
        { mode: "auto", output: { viewport: { width: 8193, height: 100 } }, assets: [text] },
        { mode: "auto", output: { viewport: { width: 100.5, height: 100 } }, assets: [text] },
        { mode: "auto", output: { viewport: { width: "100", height: 100 } }, assets: [text] },
        { mode: "auto", output: { viewport: { width: 100 } }, assets: [text] },
        { mode: "auto", output: { viewport: { width: 2001, height: 2000 } }, assets: [text] },
        { mode: "auto", output: { formats: [] }, assets: [text] },
        { mode: "auto", output: { formats: ["gif"] }, assets: [text] },
        { mode: "auto", output: { colorMode: "sepia" }, assets: [text] },
        { mode: "auto", output: { dpi: 2 }, assets: [text] },
        { mode: "auto", output: {}, assets: [{ type: "video", url: "https://e.com" }] },
        {
          mode: "auto",
          output: {},
          assets: [{ type: "image", contentType: "image/gif", sizeBytes: 1 }],
        },
        { mode: "auto", output: {}, assets: [{ type: "image", contentType: "image/png" }] },
        { mode: "auto", output: {}, assets: [{ type: "link", url: "gopher://e.com" }] },
        { mode: "auto", output: {}, assets: [text], extra: 1 },
      ];
      for (const body of bodies) {
        const reply = await acct.call(mount, "POST", "/contents", { body });
        const error = expectCode(reply, 400, "invalid_request");
        assert.ok(error.message.length > 0, JSON.stringify(body));
      }
      // 2000x2000 is exactly at the pixel limit and accepted.
      expectStatus(
        await acct.call(mount, "POST", "/contents", {
          body: {
            mode: "auto",
            output: { viewport: { width: 2000, height: 2000 } },
            assets: [text],
          },
        }),
        201,
      );
      // A declared image over 10 MB is refused before a ticket exists.
      expectCode(
        await acct.call(mount, "POST", "/contents", {
          body: {
            mode: "hardcode",
            output: {},
            assets: [{ ...image, sizeBytes: 10 * 1024 * 1024 + 1 }],
          },
        }),
        413,
        "payload_too_large",
      );
      // SPEC 2.11 rule 7: a credential in what a Scene is made of is refused before storage.
      const error = expectCode(
        await acct.call(mount, "POST", "/contents", {
          body: { mode: "auto", output: {}, assets: [{ type: "text", text: `token ${acct.pat}` }] },
        }),
        400,
        "invalid_request",
      );
      assert.match(error.message, /personal access token at assets\[0\]\.text/);
      assert.equal(error.message.includes(acct.pat), false);
      assertEquals((await counts(s, acct.userId)).contents, 1);
    },
  );
}

for (const name of MOUNTS) {
  suite.test(
    `${name}: Idempotency-Key replays the first content, 409 with another body, 400 malformed`,
    async (api, s) => {
      const acct = await account(api);
      const mount = acct[name];
      const key = newKey();
      const body = {
        mode: "hardcode",
        title: "Once",
        output: { preset: "macos-widget-small" },
        assets: [{ type: "image", contentType: "image/png", sizeBytes: 100 }],
      };
      const first = expectStatus(
        await acct.call(mount, "POST", "/contents", { headers: { "Idempotency-Key": key }, body }),
        201,
      );
      const again = await acct.call(mount, "POST", "/contents", {
        headers: { "Idempotency-Key": key },
        body,
      });
      const replay = expectStatus(again, 201);
      assertEquals(again.headers.get("idempotent-replayed"), "true");
      assertEquals([replay.id, replay.assets[0].fileId], [first.id, first.assets[0].fileId]);
      // The replayed ticket works: the upload lands on the same file.
      assert.equal(await upload(replay.assets[0].upload, testPng()), 204);
      const files = await s.app.services.db.selectFrom("files").select("id")
        .where("user_id", "=", acct.userId).execute();
      assertEquals(files.length, 1);
      assertEquals((await counts(s, acct.userId)).contents, 1);
      expectCode(
        await acct.call(mount, "POST", "/contents", {
          headers: { "Idempotency-Key": key },
          body: { ...body, title: "Twice" },
        }),
        409,
        "invalid_state",
      );
      // The same key on the other mount is the same user's key.
      const other = acct[name === "app" ? "sdk" : "app"];
      assertEquals(
        expectStatus(
          await acct.call(other, "POST", "/contents", {
            headers: { "Idempotency-Key": key },
            body,
          }),
          201,
        ).id,
        first.id,
      );
      // Keys belong to their user.
      const stranger = await account(api);
      const theirs = expectStatus(
        await stranger.call(stranger[name], "POST", "/contents", {
          headers: { "Idempotency-Key": key },
          body,
        }),
        201,
      );
      assert.notEqual(theirs.id, first.id);
      for (const bad of ["short", "x".repeat(129), "tab\there-key"]) {
        expectCode(
          await acct.call(mount, "POST", "/contents", {
            headers: { "Idempotency-Key": bad },
            body,
          }),
          400,
          "invalid_request",
        );
      }
      assertEquals((await counts(s, acct.userId)).contents, 1);
    },
  );
}

suite.test(
  "concurrent identical creates with one Idempotency-Key make one content",
  async (api, s) => {
    const acct = await account(api);
    const key = newKey();
    const body = {
      mode: "hardcode",
      output: {},
      assets: [{ type: "image", contentType: "image/jpeg", sizeBytes: 100 }],
    };
    const replies = await Promise.all(
      Array.from(
        { length: 8 },
        (_, i) =>
          acct.call(i % 2 ? acct.app : acct.sdk, "POST", "/contents", {
            headers: { "Idempotency-Key": key },
            body,
          }),
      ),
    );
    const ids = new Set(replies.map((r) => expectStatus(r, 201).id));
    assertEquals(ids.size, 1);
    assertEquals((await counts(s, acct.userId)).contents, 1);
    const files = await s.app.services.db.selectFrom("files").select("id")
      .where("user_id", "=", acct.userId).execute();
    assertEquals(files.length, 1);
    // Different bodies racing on one key: one wins, the others are 409.
    const key2 = newKey();
    const mixed = await Promise.all(
      ["a", "b", "c", "d"].map((title) =>
        acct.call(acct.app, "POST", "/contents", {
          headers: { "Idempotency-Key": key2 },
          body: { ...body, title },
        })
      ),
    );
    assertEquals(mixed.map((r) => r.status).sort(), [201, 409, 409, 409]);
  },
);

for (const name of MOUNTS) {
  suite.test(
    `${name}: confirm: 409 invalid_state before the upload, once only, 404 for others`,
    async (api, s) => {
      const acct = await account(api);
      const mount = acct[name];
      const created = expectStatus(
        await acct.call(mount, "POST", "/contents", {
          body: {
            mode: "hardcode",
            output: { viewport: { width: 64, height: 48 } },
            assets: [{ type: "image", contentType: "image/png", sizeBytes: 100 }],
          },
        }),
        201,
      );
      expectCode(
        await acct.call(mount, "POST", `/contents/${created.id}/confirm`),
        409,
        "invalid_state",
      );
      const stranger = await account(api);
      expectCode(
        await stranger.call(stranger[name], "GET", `/contents/${created.id}`),
        404,
        "not_found",
      );
      expectCode(
        await stranger.call(stranger[name], "POST", `/contents/${created.id}/confirm`),
        404,
        "not_found",
      );
      expectCode(await acct.call(mount, "GET", "/contents/not-a-uuid"), 400, "invalid_request");
      expectCode(
        await acct.call(mount, "GET", `/contents/${crypto.randomUUID()}`),
        404,
        "not_found",
      );
      assert.equal(await upload(created.assets[0].upload, testPng()), 204);
      const confirms = await Promise.all(
        [1, 2, 3].map(() => acct.call(mount, "POST", `/contents/${created.id}/confirm`)),
      );
      for (const reply of confirms) {
        assert.ok(["processing", "ready"].includes(expectStatus(reply, 202).state));
      }
      const done = await poll(acct, mount, `/contents/${created.id}`, (c) => c.state === "ready");
      const again = expectStatus(
        await acct.call(mount, "POST", `/contents/${created.id}/confirm`),
        202,
      );
      assertEquals([again.state, again.presentationIds], ["ready", done.presentationIds]);
      const rows = await counts(s, acct.userId);
      assertEquals([rows.presentations, done.presentationIds.length], [1, 1]);
    },
  );
}

suite.test("an upload that is not PNG or JPEG is 409 invalid_state at confirm", async (api) => {
  const acct = await account(api);
  const created = expectStatus(
    await acct.call(acct.sdk, "POST", "/contents", {
      body: {
        mode: "hardcode",
        output: {},
        assets: [{ type: "image", contentType: "image/png", sizeBytes: 100 }],
      },
    }),
    201,
  );
  const gif = new TextEncoder().encode("GIF89a\x01\x00\x01\x00\x00\x00\x00;");
  assert.equal(await upload(created.assets[0].upload, gif, "image/gif"), 204);
  const error = expectCode(
    await acct.call(acct.sdk, "POST", `/contents/${created.id}/confirm`),
    409,
    "invalid_state",
  );
  assert.match(error.message, /PNG or JPEG/);
  assertEquals(
    expectStatus(await acct.call(acct.sdk, "GET", `/contents/${created.id}`), 200).state,
    "uploading",
  );
});

/** A PNG whose chunks are sound but whose image data inflates short: only a decoder sees it. */
function shortPng(): Uint8Array {
  return buildPng(ihdr(40, 30), [pngChunk("IDAT", deflateSync(new Uint8Array(100)))]);
}

suite.test("an image asset that cannot be decoded is 409 invalid_state at confirm (issue 25)", async (api) => {
  const acct = await account(api);
  const png = testPng();
  const truncated = png.subarray(0, png.length >> 1);
  const created = expectStatus(
    await acct.call(acct.sdk, "POST", "/contents", {
      body: {
        mode: "hardcode",
        output: {},
        assets: [{ type: "image", contentType: "image/png", sizeBytes: truncated.length }],
      },
    }),
    201,
  );
  assert.equal(await upload(created.assets[0].upload, truncated, "image/png"), 204);
  const error = expectCode(
    await acct.call(acct.sdk, "POST", `/contents/${created.id}/confirm`),
    409,
    "invalid_state",
  );
  assert.match(error.message, /^Uploaded image cannot be rendered: PNG chunk IDAT runs past/);
  assertEquals(
    expectStatus(await acct.call(acct.sdk, "GET", `/contents/${created.id}`), 200).state,
    "uploading",
  );
});

suite.test("text-only auto content waits for confirm, then is generated", async (api, s) => {
  const acct = await proAccount(api, s);
  const created = expectStatus(
    await acct.call(acct.app, "POST", "/contents", {
      body: {
        mode: "auto",
        title: "Notes",
        output: { preset: "macos-widget-small" },
        assets: [{ type: "text", text: "Milk, eggs" }],
      },
    }),
    201,
  );
  await new Promise((r) => setTimeout(r, 300));
  assertEquals(
    expectStatus(await acct.call(acct.app, "GET", `/contents/${created.id}`), 200).state,
    "uploading",
  );
  expectStatus(await acct.call(acct.app, "POST", `/contents/${created.id}/confirm`), 202);
  const done = await poll(
    acct,
    acct.app,
    `/contents/${created.id}`,
    (c) => c.state !== "processing",
  );
  assertEquals(done.state, "ready");
  const p = expectStatus(
    await acct.call(acct.app, "GET", `/presentations/${done.presentationIds[0]}`),
    200,
  );
  const texts = p.scene.data.elements.filter((e: any) => e.type === "text").map((e: any) =>
    e.properties.text
  );
  assertEquals(texts, ["Notes", "Milk, eggs"]);
});

suite.test(
  "a scene-only profile is ready with no renditions; output formats are honoured",
  async (api, s) => {
    const acct = await proAccount(api, s);
    const content = await autoContent(acct, acct.sdk, {
      intent: "clock",
      output: { viewport: { width: 300, height: 100 }, formats: ["scene"], colorMode: "grayscale" },
    });
    const p = expectStatus(
      await acct.call(acct.sdk, "GET", `/presentations/${content.presentationIds[0]}`),
      200,
    );
    assertEquals([p.state, p.renditions, p.output.formats, p.output.preset], ["ready", [], [
      "scene",
    ], null]);
    // Adding a PNG later still works (no AI, no gate).
    const added = expectStatus(
      await acct.call(acct.sdk, "POST", `/presentations/${p.id}/renditions`, {
        body: { width: 150, height: 50 },
      }),
      202,
    );
    assertEquals([added.state, added.url, added.expiresAt, added.colorMode], [
      "preparing",
      null,
      null,
      "grayscale",
    ]);
  },
);

for (const name of MOUNTS) {
  suite.test(
    `${name}: presentations list: scope, state, limit, cursor; 404 presentation_not_found`,
    async (api, _s) => {
      const acct = await account(api);
      const mount = acct[name];
      const made: string[] = [];
      for (let i = 0; i < 3; i++) {
        const { presentation } = await hardcodePresentation(acct, mount, {
          viewport: { width: 32, height: 24 },
        });
        made.push(presentation.id);
      }
      const page1 = expectStatus(await acct.call(mount, "GET", "/presentations?limit=2"), 200);
      assertEquals(Object.keys(page1).sort(), ["hasMore", "items", "nextCursor"]);
      assertEquals([page1.items.map((p: any) => p.id), page1.hasMore], [[made[2], made[1]], true]);
      const page2 = expectStatus(
        await acct.call(mount, "GET", `/presentations?limit=2&cursor=${page1.nextCursor}`),
        200,
      );
      assertEquals([page2.items.map((p: any) => p.id), page2.hasMore, page2.nextCursor], [
        [made[0]],
        false,
        undefined,
      ]);
      const all = expectStatus(
        await acct.call(mount, "GET", "/presentations?scope=all&state=ready"),
        200,
      );
      assertEquals(all.items.length, 3);
      assertEquals(
        expectStatus(await acct.call(mount, "GET", "/presentations?state=failed"), 200).items,
        [],
      );
      assertEquals(
        expectStatus(await acct.call(mount, "GET", "/presentations?scope=display"), 200).items,
        [],
      );
      for (
        const query of ["limit=0", "limit=51", "limit=x", "scope=mine", "state=done", "cursor=zzz"]
      ) {
        expectCode(
          await acct.call(mount, "GET", `/presentations?${query}`),
          400,
          "invalid_request",
        );
      }
      // Another user's presentation, or none at all, is 404 presentation_not_found; reading
      // presentations of others never lists them.
      const stranger = await account(api);
      for (const id of [made[0], crypto.randomUUID()]) {
        expectCode(
          await stranger.call(stranger[name], "GET", `/presentations/${id}`),
          404,
          "presentation_not_found",
        );
        expectCode(
          await stranger.call(stranger[name], "POST", `/presentations/${id}/renditions`, {
            body: { width: 10, height: 10 },
          }),
          404,
          "presentation_not_found",
        );
      }
      assertEquals(
        expectStatus(await stranger.call(stranger[name], "GET", "/presentations?scope=all"), 200)
          .items,
        [],
      );
      expectCode(await acct.call(mount, "GET", "/presentations/nope"), 400, "invalid_request");
    },
  );
}

suite.test(
  "GET presentation is a pure read: re-signed URLs of the same file, nothing rendered",
  async (api, s) => {
    const acct = await account(api);
    const { presentation } = await hardcodePresentation(acct, acct.app, {
      viewport: { width: 40, height: 30 },
    });
    const before = await counts(s, acct.userId);
    await new Promise((r) => setTimeout(r, 1100));
    const again = expectStatus(
      await acct.call(acct.app, "GET", `/presentations/${presentation.id}`),
      200,
    );
    assertEquals(await counts(s, acct.userId), before);
    assertEquals(again.updatedAt, presentation.updatedAt);
    assertEquals(again.renditions[0].updatedAt, presentation.renditions[0].updatedAt);
    assert.notEqual(again.renditions[0].url, presentation.renditions[0].url);
    const [a, b] = await Promise.all([
      download(presentation.renditions[0].url),
      download(again.renditions[0].url),
    ]);
    assertEquals(a.bytes, b.bytes);
    const image = again.scene.data.elements[0];
    assertEquals([image.type, image.properties.fit], ["image", "stretch"]);
    assertEquals((await download(image.properties.url)).status, 200);
  },
);

for (const name of MOUNTS) {
  suite.test(
    `${name}: renditions: 202 preparing, dedup, validation, Idempotency-Key`,
    async (api, s) => {
      const acct = await account(api);
      const mount = acct[name];
      const { presentation } = await hardcodePresentation(acct, mount, {
        viewport: { width: 80, height: 60 },
      });
      const path = `/presentations/${presentation.id}/renditions`;
      const reply = await acct.call(mount, "POST", path, { body: { width: 40, height: 30 } });
      const added = expectStatus(reply, 202);
      assertEquals(reply.headers.has("x-renewed-token"), name === "app");
      assertEquals(Object.keys(added).sort(), RENDITION_KEYS);
      assertEquals(
        [
          added.state,
          added.url,
          added.expiresAt,
          added.failure,
          added.mediaType,
          added.format,
          added.colorMode,
        ],
        ["preparing", null, null, null, "image/png", "png", "color"],
      );
      // Same key (presentation, format, width, height, colorMode): the same rendition.
      const same = expectStatus(
        await acct.call(mount, "POST", path, {
          body: { width: 40, height: 30, colorMode: "color", format: "png" },
        }),
        202,
      );
      assertEquals(same.id, added.id);
      const grey = expectStatus(
        await acct.call(mount, "POST", path, {
          body: { width: 40, height: 30, colorMode: "grayscale" },
        }),
        202,
      );
      assert.notEqual(grey.id, added.id);
      const done = await poll(
        acct,
        mount,
        `/presentations/${presentation.id}`,
        (p) => p.renditions.every((r: any) => r.state !== "preparing"),
      );
      // Added renditions never change the presentation state.
      assertEquals([done.state, done.renditions.length], ["ready", 3]);
      const file = await download(
        done.renditions.find((r: any) => r.id === grey.id).url,
      );
      assertEquals(pngInfo(file.bytes), { width: 40, height: 30, bitDepth: 8, colorType: 0 });
      // A dedup hit on a ready rendition answers it with its URL.
      const ready = expectStatus(
        await acct.call(mount, "POST", path, { body: { width: 40, height: 30 } }),
        202,
      );
      assertEquals([ready.id, ready.state, typeof ready.url], [added.id, "ready", "string"]);
      for (
        const body of [
          {},
          { width: 0, height: 10 },
          { width: 10, height: 8193 },
          { width: 10.5, height: 10 },
          { width: "10", height: 10 },
          { width: 2001, height: 2000 },
          { width: 10, height: 10, colorMode: "sepia" },
          { width: 10, height: 10, format: "jpeg" },
          { width: 10, height: 10, extra: true },
        ]
      ) {
        expectCode(await acct.call(mount, "POST", path, { body }), 400, "invalid_request");
      }
      // Idempotency-Key: a replay answers the rendition, another body under the key is 409.
      const key = newKey();
      const keyed = expectStatus(
        await acct.call(mount, "POST", path, {
          headers: { "Idempotency-Key": key },
          body: { width: 20, height: 15 },
        }),
        202,
      );
      const replay = expectStatus(
        await acct.call(mount, "POST", path, {
          headers: { "Idempotency-Key": key },
          body: { width: 20, height: 15 },
        }),
        202,
      );
      assertEquals(replay.id, keyed.id);
      expectCode(
        await acct.call(mount, "POST", path, {
          headers: { "Idempotency-Key": key },
          body: { width: 21, height: 15 },
        }),
        409,
        "invalid_state",
      );
      expectCode(
        await acct.call(mount, "POST", path, {
          headers: { "Idempotency-Key": "bad" },
          body: { width: 22, height: 15 },
        }),
        400,
        "invalid_request",
      );
      assertEquals((await counts(s, acct.userId)).renditions, 4);
    },
  );
}

suite.test("concurrent identical rendition requests make one rendition", async (api, s) => {
  const acct = await account(api);
  const { presentation } = await hardcodePresentation(acct, acct.sdk, {
    viewport: { width: 80, height: 60 },
  });
  const replies = await Promise.all(
    Array.from(
      { length: 10 },
      (_, i) =>
        acct.call(
          i % 2 ? acct.sdk : acct.app,
          "POST",
          `/presentations/${presentation.id}/renditions`,
          {
            body: { width: 33, height: 22, colorMode: "monochrome" },
          },
        ),
    ),
  );
  const ids = new Set(replies.map((r) => expectStatus(r, 202).id));
  assertEquals(ids.size, 1);
  assertEquals((await counts(s, acct.userId)).renditions, 2);
});

suite.test(
  "scale rules: letterbox on the Scene background, uniform, hardcode stretched",
  async (api, s) => {
    const acct = await account(api);
    // A hardcode Scene is stretched: a square rendition of a 4:3 picture has no letterbox.
    const { presentation } = await hardcodePresentation(acct, acct.app, {
      viewport: { width: 64, height: 48 },
    }, testPng(64, 48));
    const pixel = (png: ReturnType<typeof decodePng>, x: number, y: number) =>
      Array.from(
        png.data.slice((y * png.width + x) * png.channels, (y * png.width + x) * png.channels + 3),
      );
    const square = expectStatus(
      await acct.call(acct.app, "POST", `/presentations/${presentation.id}/renditions`, {
        body: { width: 60, height: 60 },
      }),
      202,
    );
    // A Scene of our own with a green background and a red box over all of it.
    const scene = {
      mediaType: "application/vnd.service.scene+json;version=1",
      version: 1,
      data: {
        version: 1,
        viewport: { width: 40, height: 20 },
        background: "#00FF00",
        elements: [{
          id: "box",
          type: "shape",
          frame: { x: 0, y: 0, width: 40, height: 20 },
          properties: { fill: "#FF0000" },
        }],
      },
    };
    const id = crypto.randomUUID();
    await s.app.services.db.insertInto("presentations").values({
      id,
      user_id: acct.userId,
      kind: "generated",
      mode: "auto",
      state: "ready",
      output: json({
        formats: ["scene"],
        preset: null,
        viewport: { width: 40, height: 20 },
        colorMode: "color",
      }),
      scene: json(scene),
    }).execute();
    const wide = expectStatus(
      await acct.call(acct.app, "POST", `/presentations/${id}/renditions`, {
        body: { width: 40, height: 40 },
      }),
      202,
    );
    const uniform = expectStatus(
      await acct.call(acct.app, "POST", `/presentations/${id}/renditions`, {
        body: { width: 80, height: 40 },
      }),
      202,
    );
    const url = async (pid: string, rid: string) => {
      const p = await poll(
        acct,
        acct.app,
        `/presentations/${pid}`,
        (p) => p.renditions.find((r: any) => r.id === rid)?.state === "ready",
      );
      return decodePng(
        (await download(p.renditions.find((r: any) => r.id === rid).url)).bytes,
      );
    };
    const stretched = await url(presentation.id, square.id);
    assertEquals([stretched.width, stretched.height], [60, 60]);
    assertEquals(pixel(stretched, 5, 1), [220, 0, 0]); // picture to the very top: no letterbox
    assertEquals(pixel(stretched, 55, 58), [0, 0, 220]);
    const boxed = await url(id, wide.id);
    assertEquals(pixel(boxed, 20, 2), [0, 255, 0]); // letterbox: the Scene background
    assertEquals(pixel(boxed, 20, 20), [255, 0, 0]);
    assertEquals(pixel(boxed, 20, 37), [0, 255, 0]);
    const scaled = await url(id, uniform.id);
    assertEquals([pixel(scaled, 0, 0), pixel(scaled, 79, 39)], [[255, 0, 0], [255, 0, 0]]);
  },
);

suite.test("colour modes of the initial rendition: monochrome 1-bit, grayscale 8-bit grey", async (api) => {
  const acct = await account(api);
  for (
    const [colorMode, info] of [["monochrome", [1, 0]], ["grayscale", [8, 0]], ["color", [
      8,
      2,
    ]]] as const
  ) {
    const { presentation } = await hardcodePresentation(acct, acct.sdk, {
      viewport: { width: 48, height: 32 },
      colorMode,
    });
    const file = await download(presentation.renditions[0].url);
    const png = pngInfo(file.bytes);
    assertEquals([png.width, png.height, png.bitDepth, png.colorType], [48, 32, ...info]);
    assertEquals(presentation.renditions[0].colorMode, colorMode);
  }
});

suite.test(
  "a failed rendition stays readable with its problem; the presentation is ready",
  async (api, _s) => {
    const acct = await account(api);
    // Sound PNG chunks over image data that inflates short: confirm reads the structure only
    // (issue 25), so it passes, and the decoder refuses it when rendered.
    const broken = shortPng();
    const { content, presentation } = await hardcodePresentation(acct, acct.app, {
      viewport: { width: 30, height: 20 },
    }, broken);
    assertEquals([content.state, presentation.state], ["ready", "ready"]);
    const [rendition] = presentation.renditions;
    assertEquals([rendition.state, rendition.url, rendition.expiresAt], ["failed", null, null]);
    assertEquals(Object.keys(rendition.failure).sort(), ["code", "message"]);
    // The render pool's refusal of the picture (415-like: it cannot be decoded).
    assert.ok(
      ["undecodable", "unsupported_format"].includes(rendition.failure.code),
      rendition.failure.code,
    );
    assert.ok(rendition.failure.message.length > 0);
    const again = expectStatus(
      await acct.call(acct.app, "GET", `/presentations/${presentation.id}`),
      200,
    );
    assertEquals(again.renditions[0].failure, rendition.failure);
    // Another size fails on its own; the presentation is not affected.
    const added = expectStatus(
      await acct.call(acct.app, "POST", `/presentations/${presentation.id}/renditions`, {
        body: { width: 10, height: 10 },
      }),
      202,
    );
    const after = await poll(
      acct,
      acct.app,
      `/presentations/${presentation.id}`,
      (p) => p.renditions.find((r: any) => r.id === added.id).state !== "preparing",
    );
    assertEquals([
      after.state,
      after.failure,
      after.renditions.map((r: any) => r.state),
    ], ["ready", null, ["failed", "failed"]]);
  },
);

suite.test(
  "a link to a loopback address fails the content with link_refused; nothing is fetched",
  async (api, s) => {
    const acct = await proAccount(api, s);
    const hits: string[] = [];
    const local = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
      hits.push(req.url);
      return new Response("<title>internal</title>", { headers: { "content-type": "text/html" } });
    });
    try {
      for (
        const url of [
          `http://127.0.0.1:${local.addr.port}/admin`,
          `http://localhost:${local.addr.port}/`,
        ]
      ) {
        const content = await autoContent(acct, acct.sdk, {
          output: {},
          assets: [{ type: "link", url }],
        });
        assertEquals([content.state, content.presentationIds.length], ["failed", 1]);
        const p = expectStatus(
          await acct.call(acct.sdk, "GET", `/presentations/${content.presentationIds[0]}`),
          200,
        );
        assertEquals([p.state, p.scene, p.renditions, p.failure.code], [
          "failed",
          null,
          [],
          "link_refused",
        ]);
        assertEquals(
          expectStatus(await acct.call(acct.sdk, "GET", "/presentations?state=failed"), 200).items
            .some((i: any) => i.id === p.id),
          true,
        );
        // A failed presentation has no Scene to add a size to.
        expectCode(
          await acct.call(acct.sdk, "POST", `/presentations/${p.id}/renditions`, {
            body: { width: 10, height: 10 },
          }),
          409,
          "invalid_state",
        );
      }
      assertEquals(hits, []);
    } finally {
      await local.shutdown();
    }
  },
);

suite.test(
  "manual: a push to the caller's device, mirrored by its presentation",
  async (api, s) => {
    const acct = await account(api);
    const device = await createDevice(s, acct.userId);
    const png = testPng(200, 120);
    const created = expectStatus(
      await acct.call(acct.app, "POST", "/contents", {
        body: {
          mode: "manual",
          title: "For the hall",
          displayId: device.id,
          assets: [{ type: "image", contentType: "image/png", sizeBytes: png.length }],
        },
      }),
      201,
    );
    assertEquals([created.output, created.state], [null, "uploading"]);
    assert.equal(await upload(created.assets[0].upload, png), 204);
    const confirmed = expectStatus(
      await acct.call(acct.app, "POST", `/contents/${created.id}/confirm`),
      202,
    );
    assertEquals([confirmed.state, confirmed.presentationIds.length], ["processing", 1]);
    const pid = confirmed.presentationIds[0];
    const queued = await poll(
      acct,
      acct.app,
      `/presentations/${pid}`,
      (p) => p.state !== "preparing",
    );
    assertEquals(
      [queued.state, queued.displayId, queued.mode, queued.output, queued.scene, queued.renditions],
      ["queued", device.id, "manual", null, null, []],
    );
    assertEquals(Object.keys(queued.image).sort(), [
      "expiresAt",
      "height",
      "mediaType",
      "url",
      "width",
    ]);
    assertEquals([queued.image.mediaType, queued.image.width, queued.image.height], [
      "image/png",
      800,
      480,
    ]);
    const bitmap = await download(queued.image.url);
    assertEquals(pngInfo(bitmap.bytes).width, 800);
    assertEquals(
      expectStatus(await acct.call(acct.app, "GET", `/contents/${created.id}`), 200).state,
      "ready",
    );
    const push = await s.app.services.db.selectFrom("pushes").selectAll().where(
      "user_id",
      "=",
      acct.userId,
    )
      .executeTakeFirstOrThrow();
    assertEquals([push.device_id, push.title, push.template], [
      device.id,
      "For the hall",
      "custom-image",
    ]);
    // The presentation follows the push: the device fetches it (published), confirms it.
    expectStatus(await api.get(`/api/devices/${device.id}/push`, { token: acct.accessToken }), 200);
    assertEquals(
      expectStatus(await acct.call(acct.sdk, "GET", `/presentations/${pid}`), 200).state,
      "published",
    );
    await s.app.services.pushes.confirmDisplayed(device.thingName, push.id);
    assertEquals(
      expectStatus(await acct.call(acct.sdk, "GET", `/presentations/${pid}`), 200).state,
      "confirmed",
    );
    // Scopes: display lists it, generated (the default) does not.
    const ids = async (query: string) =>
      expectStatus(await acct.call(acct.app, "GET", `/presentations${query}`), 200).items.map((
        p: any,
      ) => p.id);
    assertEquals(await ids("?scope=display"), [pid]);
    assertEquals(await ids(""), []);
    assertEquals(await ids("?scope=all&state=confirmed"), [pid]);
    expectCode(
      await acct.call(acct.app, "POST", `/presentations/${pid}/renditions`, {
        body: { width: 10, height: 10 },
      }),
      409,
      "invalid_state",
    );
    // Unbinding the device takes its push: the presentation reads expired.
    expectStatus(
      await api.post(`/api/devices/${device.id}/unbind`, { token: acct.accessToken }),
      200,
    );
    const gone = expectStatus(await acct.call(acct.app, "GET", `/presentations/${pid}`), 200);
    assertEquals([gone.state, gone.image], ["expired", null]);
  },
);

suite.test(
  "manual: text assets become a note push; displayId 404 unknown, 403 not yours",
  async (api, s) => {
    const acct = await account(api);
    const device = await createDevice(s, acct.userId);
    const created = expectStatus(
      await acct.call(acct.sdk, "POST", "/contents", {
        body: {
          mode: "manual",
          title: "Shopping",
          displayId: device.id,
          assets: [{ type: "text", text: "Milk" }, { type: "text", text: "Bread" }],
        },
      }),
      201,
    );
    expectStatus(await acct.call(acct.sdk, "POST", `/contents/${created.id}/confirm`), 202);
    const content = await poll(
      acct,
      acct.sdk,
      `/contents/${created.id}`,
      (c) => c.state !== "processing",
    );
    assertEquals(content.state, "ready");
    const push = await s.app.services.db.selectFrom("pushes").selectAll().where(
      "user_id",
      "=",
      acct.userId,
    )
      .executeTakeFirstOrThrow();
    assertEquals([push.template, push.params, push.status], ["note", {
      title: "Shopping",
      body: "Milk\n\nBread",
    }, "QUEUE"]);
    const other = await account(api);
    const theirs = await createDevice(s, other.userId);
    const body = (displayId: string) => ({
      mode: "manual",
      displayId,
      assets: [{ type: "text", text: "x" }],
    });
    expectCode(
      await acct.call(acct.sdk, "POST", "/contents", { body: body(crypto.randomUUID()) }),
      404,
      "not_found",
    );
    expectCode(
      await acct.call(acct.sdk, "POST", "/contents", { body: body(theirs.id) }),
      403,
      "forbidden",
    );
    expectCode(
      await acct.call(acct.sdk, "POST", "/contents", { body: body("nope") }),
      400,
      "invalid_request",
    );
  },
);

suite.test(
  "manual: a push whose render fails for good fails its presentation and content",
  async (api, s) => {
    const acct = await account(api);
    const device = await createDevice(s, acct.userId);
    const broken = shortPng();
    const created = expectStatus(
      await acct.call(acct.app, "POST", "/contents", {
        body: {
          mode: "manual",
          displayId: device.id,
          assets: [{ type: "image", contentType: "image/png", sizeBytes: broken.length }],
        },
      }),
      201,
    );
    assert.equal(await upload(created.assets[0].upload, broken, "image/png"), 204);
    const confirmed = expectStatus(
      await acct.call(acct.app, "POST", `/contents/${created.id}/confirm`),
      202,
    );
    const p = await poll(
      acct,
      acct.app,
      `/presentations/${confirmed.presentationIds[0]}`,
      (p) => p.state !== "preparing",
    );
    assertEquals([p.state, p.failure.code, p.image], ["failed", "render_failed", null]);
    assertEquals(
      expectStatus(await acct.call(acct.app, "GET", `/contents/${created.id}`), 200).state,
      "failed",
    );
  },
);

suite.test(
  "plan gate before and after signed billing webhooks; a downgraded user keeps reading",
  async (_api, _s) => {
    const secret = "whsec_targetless_gate";
    // The suite's server has no webhook secret: this test runs its own.
    const { startTestServer } = await import("./helpers/server.ts");
    const { client } = await import("./helpers/http.ts");
    const { deliverEvent, stripeObjects } = await import("./helpers/stripe_events.ts");
    const server = await startTestServer({
      STRIPE_WEBHOOK_SECRET: secret,
      ACCESS_TOKEN_EXPIRY: "1h",
    });
    try {
      const gated = client(server.url);
      const acct = await account(gated);
      const stripe = stripeObjects(acct.userId);
      const autoBody = {
        mode: "auto",
        intent: "a clock",
        output: { preset: "macos-widget-small" },
      };
      for (const mount of [acct.app, acct.sdk]) {
        expectCode(
          await acct.call(mount, "POST", "/contents", { body: autoBody }),
          403,
          "plan_upgrade_required",
        );
      }
      // hardcode is for everyone, free plan included.
      const { presentation } = await hardcodePresentation(acct, acct.sdk, {
        viewport: { width: 20, height: 20 },
      });
      assertEquals((await counts(server, acct.userId)).contents, 1);
      await deliverEvent(gated, secret, "checkout.session.completed", stripe.checkout);
      const pro = await autoContent(acct, acct.app, autoBody);
      assertEquals(pro.state, "ready");
      // SPEC 3.2: a Presentation may still be preparing when its Content is ready.
      await poll(
        acct,
        acct.app,
        `/presentations/${pro.presentationIds[0]}`,
        (p) => p.state !== "preparing",
      );
      await deliverEvent(gated, secret, "invoice.payment_failed", stripe.failedInvoice);
      for (const mount of [acct.app, acct.sdk]) {
        expectCode(
          await acct.call(mount, "POST", "/contents", { body: autoBody }),
          402,
          "payment_required",
        );
      }
      await deliverEvent(
        gated,
        secret,
        "customer.subscription.deleted",
        stripe.subscription("canceled"),
      );
      for (const mount of [acct.app, acct.sdk]) {
        expectCode(
          await acct.call(mount, "POST", "/contents", { body: autoBody }),
          403,
          "plan_upgrade_required",
        );
        // Downgraded: reading, listing and adding sizes go on, without AI or the gate.
        expectStatus(await acct.call(mount, "GET", `/contents/${pro.id}`), 200);
        const listed = expectStatus(await acct.call(mount, "GET", "/presentations"), 200);
        assertEquals(listed.items.length, 2);
        const p = expectStatus(
          await acct.call(mount, "GET", `/presentations/${pro.presentationIds[0]}`),
          200,
        );
        assert.ok(p.renditions[0].url);
        expectStatus(
          await acct.call(mount, "POST", `/presentations/${p.id}/renditions`, {
            body: { width: 85, height: 85 },
          }),
          202,
        );
        expectStatus(
          await acct.call(mount, "POST", `/presentations/${presentation.id}/renditions`, {
            body: { width: 10, height: 10 },
          }),
          202,
        );
      }
    } finally {
      await server.close();
    }
  },
);

suite.test("a Scene naming another user's file neither shows nor renders it", async (api, s) => {
  const victim = await account(api);
  await hardcodePresentation(victim, victim.sdk, { viewport: { width: 20, height: 20 } });
  const theirs = await s.app.services.db.selectFrom("files").select("id")
    .where("user_id", "=", victim.userId).executeTakeFirstOrThrow();
  const acct = await account(api);
  const id = crypto.randomUUID();
  await s.app.services.db.insertInto("presentations").values({
    id,
    user_id: acct.userId,
    kind: "generated",
    mode: "auto",
    state: "ready",
    output: json({
      formats: ["scene"],
      preset: null,
      viewport: { width: 20, height: 20 },
      colorMode: "color",
    }),
    scene: json({
      mediaType: "application/vnd.service.scene+json;version=1",
      version: 1,
      data: {
        version: 1,
        viewport: { width: 20, height: 20 },
        background: "#00FF00",
        elements: [{
          id: "stolen",
          type: "image",
          frame: { x: 0, y: 0, width: 20, height: 20 },
          properties: { fileId: theirs.id, fit: "stretch" },
        }],
      },
    }),
  }).execute();
  const read = expectStatus(await acct.call(acct.app, "GET", `/presentations/${id}`), 200);
  assertEquals(read.scene.data.elements[0].properties, { fit: "stretch", url: null });
  const added = expectStatus(
    await acct.call(acct.app, "POST", `/presentations/${id}/renditions`, {
      body: { width: 20, height: 20 },
    }),
    202,
  );
  const done = await poll(
    acct,
    acct.app,
    `/presentations/${id}`,
    (p) => p.renditions[0].state !== "preparing",
  );
  assertEquals(done.renditions[0].id, added.id);
  const png = decodePng((await download(done.renditions[0].url)).bytes);
  for (let i = 0; i < png.width * png.height; i++) {
    const p = Array.from(png.data.slice(i * png.channels, i * png.channels + 3));
    assertEquals(p, [0, 255, 0]);
  }
});

suite.test(
  "generation: retryable model failures retry, the last try fails; a refused Scene is asked again",
  async (api, s) => {
    const { GenerateSceneJob } = await import("../src/domains/targetless/generate_job.ts");
    const { LinkFetcher } = await import("../src/infra/outbound/fetch_link.ts");
    const { ModelError } = await import("../src/infra/ai/model.ts");
    const acct = await account(api);
    const services = s.app.services;
    const deps = {
      db: services.db,
      store: services.storage,
      jobs: services.jobs,
      limits: services.config.targetless,
      billing: services.billing,
      devices: services.devices,
      pushes: services.pushes,
      log: { info: () => {}, error: () => {} },
    };
    const profile = {
      formats: ["scene"],
      preset: null,
      viewport: { width: 100, height: 50 },
      colorMode: "color",
    };
    // A content already confirmed (no job was sent for it: this test runs the handler itself).
    const content = async () => {
      const id = crypto.randomUUID();
      await services.db.insertInto("targetless_contents").values({
        id,
        user_id: acct.userId,
        mode: "auto",
        intent: "x",
        title: "",
        output: json(profile as any),
        display_id: null,
        assets: json([{ type: "text", text: "hello" }]),
        state: "processing",
      }).execute();
      return id;
    };
    const requests: any[] = [];
    const job = (answer: (n: number) => unknown) =>
      new GenerateSceneJob(deps, {
        links: new LinkFetcher(),
        model: {
          name: "stub",
          complete: (request: any) => {
            requests.push(request);
            const value = answer(requests.length);
            if (value instanceof Error) return Promise.reject(value);
            return Promise.resolve({
              content: [{ type: "tool_use", id: "t", name: "emit_scene", input: value }],
              stopReason: "tool_use",
              usage: { inputTokens: 0, outputTokens: 0 },
              model: "stub",
            });
          },
        },
      });
    const state = async (id: string) =>
      expectStatus(await acct.call(acct.app, "GET", `/contents/${id}`), 200);
    // Overloaded: retried (the handler throws) until the final attempt, which fails the content.
    const busy = await content();
    const overloaded = job(() => new ModelError("overloaded", true));
    await assert.rejects(overloaded.handle({ contentId: busy }, { number: 1, final: false }));
    assertEquals((await state(busy)).state, "processing");
    await overloaded.handle({ contentId: busy }, { number: 3, final: true });
    const failed = await state(busy);
    assertEquals(failed.state, "failed");
    const p = expectStatus(
      await acct.call(acct.app, "GET", `/presentations/${failed.presentationIds[0]}`),
      200,
    );
    assertEquals([p.state, p.failure.code, p.scene], ["failed", "model_failed", null]);
    // A Scene with a secret is refused; the model is asked once more with the reason.
    requests.length = 0;
    const leaky = await content();
    const valid = { version: 1, viewport: { width: 1, height: 1 }, elements: [] };
    await job((n) =>
      n === 1
        ? {
          ...valid,
          elements: [{
            id: "t",
            type: "text",
            frame: { x: 0, y: 0, width: 9, height: 9 },
            properties: { text: acct.pat },
          }],
        }
        : valid
    ).handle({ contentId: leaky }, { number: 1, final: false });
    assertEquals(requests.length, 2);
    assert.match(
      requests[1].messages[0].content[0].text,
      /refused: Scene must not contain a personal access token/,
    );
    const ready = await state(leaky);
    assertEquals(ready.state, "ready");
    const scene = expectStatus(
      await acct.call(acct.app, "GET", `/presentations/${ready.presentationIds[0]}`),
      200,
    ).scene;
    assertEquals(scene.data.viewport, { width: 100, height: 50 });
    // Refused twice: the content fails with scene_invalid, without retries.
    const stubborn = await content();
    await job(() => ({ version: 1 })).handle({ contentId: stubborn }, { number: 1, final: false });
    const invalid = await state(stubborn);
    const why = expectStatus(
      await acct.call(acct.app, "GET", `/presentations/${invalid.presentationIds[0]}`),
      200,
    );
    assertEquals([invalid.state, why.failure.code], ["failed", "scene_invalid"]);
  },
);

suite.test(
  "account deletion removes contents, presentations, renditions and their PNGs",
  async (api, s) => {
    const acct = await account(api);
    const { presentation } = await hardcodePresentation(acct, acct.app, {
      viewport: { width: 20, height: 20 },
    });
    const key = (await s.app.services.db.selectFrom("renditions").select("object_key")
      .where("id", "=", presentation.renditions[0].id).executeTakeFirstOrThrow()).object_key!;
    assert.ok(await s.app.services.storage.get(key));
    const user = await s.app.services.db.selectFrom("users").select("email").where(
      "id",
      "=",
      acct.userId,
    )
      .executeTakeFirstOrThrow();
    assert.ok(user);
    expectStatus(
      await api.delete("/auth/account", {
        token: acct.accessToken,
        body: { confirm: true, password: "correct horse battery" },
      }),
      204,
    );
    assertEquals(await counts(s, acct.userId), {
      contents: 0,
      presentations: 0,
      renditions: 0,
      pushes: 0,
      devices: 0,
    });
    await eventually(
      async () => (await s.app.services.storage.get(key)) === null,
      "rendition PNG deleted",
    );
    const keys = await s.app.services.db.selectFrom("targetless_idempotency_keys").select("key")
      .where("user_id", "=", acct.userId).execute();
    assertEquals(keys, []);
  },
);

suite.end();
