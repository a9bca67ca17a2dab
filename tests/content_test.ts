/**
 * The content pipeline end to end over HTTP with the offline model (CONTRACT.md "Content
 * pipeline"): upload → confirm → summarized → trigger → push in QUEUE → the device downloads an
 * 800x480 PNG; a second trigger pushes nothing twice.
 */
import { decode as decodePng } from "fast-png";
import { deflateSync } from "node:zlib";
import { buildPng, ihdr, pngChunk } from "./helpers/bombs.ts";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { createDevice, pushRow } from "./helpers/devices.ts";
import { eventually } from "./helpers/mqtt.ts";
import {
  createItem,
  finishedRun,
  samplePhoto,
  settledItem,
  uploadToTicket,
} from "./helpers/content.ts";
import type { Client } from "./helpers/http.ts";

const suite = serverSuite("content");

async function fetchBytes(url: string) {
  const res = await fetch(url);
  return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) };
}

suite.test(
  "offline: note and photo → summarized → trigger → QUEUE pushes the device downloads",
  async (api, s) => {
    const user = await registerUser(api);
    const token = user.accessToken;
    const device = await createDevice(s, user.user.id);
    const note = await createItem(api, token, {
      title: "Groceries",
      text: "- [ ] Oat milk\n- [x] Bread\n- [ ] Tomatoes and basil",
    });
    assertEquals(note.confirmed.status, "processing");
    const photo = await createItem(api, token, { pictures: [samplePhoto()] });
    const summarized = await settledItem(api, token, note.created.id);
    assertEquals(summarized.status, "summarized", JSON.stringify(summarized));
    assertEquals(summarized.summary_content.kind, "todo");
    assertEquals(summarized.summary_content.suggestedTemplate, "checklist");
    assertEquals(summarized.summary_content.title, "Groceries");
    const picture = await settledItem(api, token, photo.created.id);
    assertEquals(picture.status, "summarized", JSON.stringify(picture));
    assertEquals(picture.summary_content.kind, "photo");
    assert.match(picture.summary_content.summary, /landscape picture, 320x200 px/);
    assertEquals(picture.attachments[0].uploaded, true);

    assertEquals(
      expectStatus(await api.post("/api/analyze/trigger", { token }), 200),
      { status: "queued" },
    );
    const run = await finishedRun(api, token);
    assertEquals(run.status, "succeeded", JSON.stringify(run));
    assertEquals(run.reason, "MANUAL");
    assertEquals(run.model, "offline");
    assertEquals(run.pushIds.length, 2);
    assert.deepEqual(
      run.steps.map((step: { tool: string }) => step.tool).slice(0, 2),
      ["list_devices", "list_notes"],
    );
    for (const pushId of run.pushIds) {
      const row = await eventually(async () => {
        const r = await pushRow(s, pushId);
        return r.status === "QUEUE" ? r : null;
      }, "push rendered");
      assert.ok(row.render_prefix?.startsWith(`render/${user.user.id}/${device.id}/${pushId}/`));
    }
    const item = expectStatus(await api.get(`/api/raw-items/${note.created.id}`, { token }), 200);
    assertEquals(item.pushIds.length, 1);
    const first = expectStatus(await api.get(`/api/devices/${device.id}/push`, { token }), 200);
    const png = await fetchBytes(first.url);
    assertEquals(png.status, 200);
    const image = decodePng(png.bytes);
    assertEquals([image.width, image.height, image.depth], [800, 480, 1]);
    const raw2 = expectStatus(
      await api.get(`/api/devices/${device.id}/push/${first.pushId}?format=raw2`, { token }),
      200,
    );
    assertEquals((await fetchBytes(raw2.url)).bytes.length, 48000);
    const raw4 = expectStatus(
      await api.get(`/api/devices/${device.id}/push/${first.pushId}?format=raw4`, { token }),
      200,
    );
    assertEquals((await fetchBytes(raw4.url)).bytes.length, 96000);

    // A second trigger pushes nothing twice.
    expectStatus(await api.post("/api/analyze/trigger", { token }), 200);
    const second = await finishedRun(api, token, 2);
    assertEquals(second.status, "succeeded");
    assertEquals(second.pushIds, []);
    const history = expectStatus(await api.get(`/api/devices/${device.id}/pushes`, { token }), 200);
    assertEquals(history.items.length, 2);
  },
);

async function pat(api: Client, token: string) {
  const reply = await api.post("/api/personal-access-tokens", { token, body: { name: "script" } });
  return expectStatus(reply, 201).token as string;
}

suite.test("upload: shape, tickets, and every refusal with its status", async (api) => {
  const { accessToken: token } = await registerUser(api);
  const created = expectStatus(
    await api.post("/api/raw-items/upload", {
      token,
      body: {
        title: "Trip",
        text: "Pack the tent",
        attachments: [{ contentType: "image/jpeg", sizeBytes: 1000, filename: "a.jpg" }],
      },
    }),
    201,
  );
  assertEquals(Object.keys(created).sort(), [
    "attachments",
    "createdAt",
    "error",
    "id",
    "pushIds",
    "status",
    "summary_content",
    "text",
    "title",
    "updatedAt",
  ]);
  assertEquals([created.status, created.summary_content, created.title], [
    "uploading",
    null,
    "Trip",
  ]);
  const [attachment] = created.attachments;
  assertEquals(Object.keys(attachment).sort(), [
    "contentType",
    "fileId",
    "filename",
    "sizeBytes",
    "upload",
    "uploaded",
  ]);
  assertEquals(Object.keys(attachment.upload).sort(), ["expiresAt", "fields", "fileId", "url"]);
  assertEquals(attachment.upload.fileId, attachment.fileId);
  // Nothing uploaded yet: confirm is 409 and the item stays uploading.
  expectError(await api.post(`/api/raw-items/${created.id}/confirm`, { token }), 409);
  const before = expectStatus(await api.get(`/api/raw-items/${created.id}`, { token }), 200);
  assertEquals([before.status, before.attachments[0].uploaded], ["uploading", false]);
  assertEquals(await uploadToTicket(attachment.upload, samplePhoto(), "image/jpeg"), 204);
  const uploaded = expectStatus(await api.get(`/api/raw-items/${created.id}`, { token }), 200);
  assertEquals(uploaded.attachments[0].uploaded, true);

  const upload = (body: unknown) => api.post("/api/raw-items/upload", { token, body });
  const image = { contentType: "image/png", sizeBytes: 10 };
  expectError(await upload({}), 400, /note \(text\) or at least one attachment/);
  expectError(await upload({ title: "Only a title", text: "" }), 400);
  expectError(await upload({ text: "   " }), 400);
  expectError(await upload({ text: "x".repeat(20_001) }), 400, /20000 characters/);
  expectStatus(await upload({ text: "😀".repeat(20_000) }), 201);
  expectError(await upload({ attachments: Array(11).fill(image) }), 400, /at most 10/);
  expectStatus(await upload({ attachments: Array(10).fill(image) }), 201);
  expectError(await upload({ attachments: [{ contentType: "text/plain", sizeBytes: 1 }] }), 400);
  expectError(await upload({ attachments: [{ contentType: "image/png" }] }), 400);
  for (const sizeBytes of ["5", null, true, -1]) {
    expectError(await upload({ attachments: [{ contentType: "image/png", sizeBytes }] }), 400);
  }
  expectError(
    await upload({ attachments: [{ contentType: "image/png", sizeBytes: 10 * 1024 * 1024 + 1 }] }),
    413,
  );
  expectError(await upload({ text: "a\u0000b" }), 400, /NUL/);
  expectError(await api.post("/api/raw-items/upload", { body: { text: "hi" } }), 401);
});

suite.test("confirm: a picture that is not an image is 409; a second confirm starts nothing", async (api) => {
  const { accessToken: token } = await registerUser(api);
  const created = expectStatus(
    await api.post("/api/raw-items/upload", {
      token,
      body: { attachments: [{ contentType: "image/png", sizeBytes: 20 }] },
    }),
    201,
  );
  const ticket = created.attachments[0].upload;
  await uploadToTicket(ticket, new TextEncoder().encode("not a picture at all"));
  expectError(await api.post(`/api/raw-items/${created.id}/confirm`, { token }), 409);
  const note = expectStatus(
    await api.post("/api/raw-items/upload", { token, body: { text: "A thought" } }),
    201,
  );
  const first = expectStatus(await api.post(`/api/raw-items/${note.id}/confirm`, { token }), 202);
  assertEquals(first.status, "processing");
  await settledItem(api, token, note.id);
  const again = expectStatus(await api.post(`/api/raw-items/${note.id}/confirm`, { token }), 202);
  assertEquals(again.status, "summarized");
});

suite.test("a picture cut short is 409 at confirm; the item stays uploading (issue 25)", async (api) => {
  const { accessToken: token } = await registerUser(api);
  const created = expectStatus(
    await api.post("/api/raw-items/upload", {
      token,
      body: { attachments: [{ contentType: "image/png", sizeBytes: 120 }] },
    }),
    201,
  );
  await uploadToTicket(created.attachments[0].upload, samplePhoto().slice(0, 120));
  expectError(
    await api.post(`/api/raw-items/${created.id}/confirm`, { token }),
    409,
    /^Uploaded image cannot be rendered: PNG chunk IDAT runs past the end of the file/,
  );
  const item = expectStatus(await api.get(`/api/raw-items/${created.id}`, { token }), 200);
  assertEquals(item.status, "uploading");
});

suite.test("a picture that cannot be decoded is described as such; the item is summarised", async (api) => {
  const { accessToken: token } = await registerUser(api);
  // Sound PNG chunks whose image data inflates short: confirm reads structure only, so only the
  // summary stage's decoder finds it.
  const broken = buildPng(ihdr(40, 30), [pngChunk("IDAT", deflateSync(new Uint8Array(100)))]);
  const { created } = await createItem(api, token, { text: "Whiteboard", pictures: [broken] });
  const item = await settledItem(api, token, created.id);
  assertEquals(item.status, "summarized", JSON.stringify(item));
  assertEquals(item.summary_content.kind, "note");
});

suite.test("list: newest first, keyset pages, status filter, 400 for bad input", async (api) => {
  const { accessToken: token } = await registerUser(api);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const reply = await api.post("/api/raw-items/upload", { token, body: { text: `note ${i}` } });
    ids.push(expectStatus(reply, 201).id);
  }
  const page1 = expectStatus(await api.get("/api/raw-items?limit=2", { token }), 200);
  assertEquals(Object.keys(page1).sort(), ["hasMore", "items", "nextCursor"]);
  assertEquals(page1.items.map((i: { id: string }) => i.id), [ids[4], ids[3]]);
  const page2 = expectStatus(
    await api.get(`/api/raw-items?limit=2&cursor=${page1.nextCursor}`, { token }),
    200,
  );
  assertEquals(page2.items.map((i: { id: string }) => i.id), [ids[2], ids[1]]);
  const page3 = expectStatus(
    await api.get(`/api/raw-items?limit=2&cursor=${page2.nextCursor}`, { token }),
    200,
  );
  assertEquals([page3.items.length, page3.hasMore, "nextCursor" in page3], [1, false, false]);
  const all = expectStatus(await api.get("/api/raw-items", { token }), 200);
  assertEquals(all.items.length, 5);
  expectStatus(await api.post(`/api/raw-items/${ids[0]}/confirm`, { token }), 202);
  const uploading = expectStatus(await api.get("/api/raw-items?status=uploading", { token }), 200);
  assertEquals(uploading.items.length, 4);
  expectError(await api.get("/api/raw-items?status=done", { token }), 400);
  expectError(await api.get("/api/raw-items?limit=0", { token }), 400);
  expectError(await api.get("/api/raw-items?limit=51", { token }), 400);
  expectError(await api.get("/api/raw-items?cursor=nope", { token }), 400);
});

suite.test(
  "stats: seven UTC days, today last, counting uploads, summaries and pushes",
  async (api, s) => {
    const user = await registerUser(api);
    const token = user.accessToken;
    await createDevice(s, user.user.id);
    const { created } = await createItem(api, token, { text: "Call mum on Sunday" });
    await api.post("/api/raw-items/upload", { token, body: { text: "never confirmed" } });
    await settledItem(api, token, created.id);
    expectStatus(await api.post("/api/analyze/trigger", { token }), 200);
    await finishedRun(api, token);
    const stats = expectStatus(await api.get("/api/raw-items/stats", { token }), 200);
    assertEquals(Object.keys(stats).sort(), ["days", "from", "to", "totals"]);
    assertEquals(stats.days.length, 7);
    const today = new Date().toISOString().slice(0, 10);
    assertEquals(stats.days[6].date, today);
    assertEquals(stats.days[6], { date: today, uploaded: 2, summarized: 1, failed: 0, pushes: 1 });
    assertEquals(stats.totals, { uploaded: 2, summarized: 1, failed: 0, pushes: 1 });
    assertEquals(stats.from.slice(0, 10), stats.days[0].date);
  },
);

suite.test(
  "authorization twins: another user's item, file and run are 404; a PAT acts as its user",
  async (api, s) => {
    const owner = await registerUser(api);
    const other = await registerUser(api);
    const device = await createDevice(s, owner.user.id);
    const token = await pat(api, owner.accessToken);
    // Everything below runs on the owner's PAT.
    const { created } = await createItem(api, token, {
      text: "Buy stamps",
      pictures: [samplePhoto()],
    });
    const item = await settledItem(api, token, created.id);
    assertEquals(item.status, "summarized");
    expectStatus(await api.post("/api/analyze/trigger", { token }), 200);
    const run = await finishedRun(api, token);
    assertEquals(run.pushIds.length, 1);
    const fileId = item.attachments[0].fileId;
    const redirect = await fetch(`${s.url}/api/files/${fileId}/download`, {
      headers: { authorization: `Bearer ${token}` },
      redirect: "manual",
    });
    assertEquals(redirect.status, 302);
    await redirect.body?.cancel();
    const picture = await fetch(redirect.headers.get("location")!);
    assertEquals([picture.status, picture.headers.get("content-type")], [200, "image/png"]);
    await picture.body?.cancel();
    expectStatus(await api.get(`/api/analyze/runs/${run.id}`, { token }), 200);

    const theirs = other.accessToken;
    expectError(await api.get(`/api/raw-items/${created.id}`, { token: theirs }), 404);
    expectError(await api.post(`/api/raw-items/${created.id}/confirm`, { token: theirs }), 404);
    expectError(await api.get(`/api/analyze/runs/${run.id}`, { token: theirs }), 404);
    expectError(await api.get(`/api/files/${fileId}/download`, { token: theirs }), 404);
    expectError(await api.get(`/api/devices/${device.id}/push`, { token: theirs }), 403);
    expectError(await api.get(`/api/devices/${device.id}/pushes`, { token: theirs }), 403);
    assertEquals(
      expectStatus(await api.get("/api/raw-items", { token: theirs }), 200).items,
      [],
    );
    assertEquals(
      expectStatus(await api.get("/api/analyze/runs", { token: theirs }), 200).items,
      [],
    );
    const randomId = crypto.randomUUID();
    expectError(await api.get(`/api/raw-items/${randomId}`, { token }), 404);
    expectError(await api.get(`/api/files/${randomId}/download`, { token }), 404);
    expectError(await api.get(`/api/files/nope/download`, { token }), 400);
    expectError(await api.get(`/api/raw-items/nope`, { token }), 400);
    expectError(await api.get(`/api/files/${fileId}/download`), 401);
    expectError(await api.post("/api/analyze/trigger"), 401);
    expectError(await api.get("/api/analyze/runs"), 401);
    expectError(await api.get("/api/raw-items/stats"), 401);
    // A picture still waiting for its upload is no file yet.
    const pending = expectStatus(
      await api.post("/api/raw-items/upload", {
        token,
        body: { attachments: [{ contentType: "image/png", sizeBytes: 10 }] },
      }),
      201,
    );
    expectError(
      await api.get(`/api/files/${pending.attachments[0].fileId}/download`, { token }),
      404,
    );
  },
);

suite.test(
  "templates: list with schemas; preview PNG, 400 naming the variable, 404, 401",
  async (api, s) => {
    const owner = await registerUser(api);
    const other = await registerUser(api);
    const token = owner.accessToken;
    const list = expectStatus(await api.get("/api/templates", { token }), 200);
    assert.ok(list.length >= 8);
    for (
      const name of [
        "note",
        "checklist",
        "agenda",
        "quote",
        "photo",
        "headline",
        "reminder",
        "split",
      ]
    ) {
      const template = list.find((t: { name: string }) => t.name === name);
      assert.ok(template, name);
      assertEquals(Object.keys(template).sort(), ["description", "name", "schema", "title"]);
      assertEquals(template.schema.type, "object");
      assert.ok(template.schema.properties && Array.isArray(template.schema.required));
    }
    const preview = await fetch(`${s.url}/api/templates/note/preview`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Hello", body: "A preview" }),
    });
    assertEquals([preview.status, preview.headers.get("content-type")], [200, "image/png"]);
    const image = decodePng(new Uint8Array(await preview.arrayBuffer()));
    assertEquals([image.width, image.height, image.depth], [800, 480, 1]);
    const post = (name: string, body: unknown, t: string | null = token) =>
      api.post(`/api/templates/${name}/preview`, { token: t ?? undefined, body });
    expectError(await post("note", { title: "No body" }), 400, /Variable body is required/);
    expectError(await post("checklist", { items: [{ text: 5 }] }), 400, /items\[0\]\.text/);
    expectError(await post("nope", {}), 404);
    expectError(await post("note", { body: "x" }, null), 401);
    // A picture variable names one of the caller's own files.
    const { created } = await createItem(api, token, { pictures: [samplePhoto()] });
    const item = await settledItem(api, token, created.id);
    const fileId = item.attachments[0].fileId;
    const photo = await post("photo", { photo: fileId, caption: "Hill" });
    assertEquals([photo.status, photo.contentType], [200, "image/png"]);
    expectError(await post("photo", { photo: fileId }, other.accessToken), 400, /photo/);
  },
);

suite.test(
  "schedule: a SCHEDULED run for users with new summarised material, once",
  async (api, s) => {
    const user = await registerUser(api);
    const token = user.accessToken;
    const idle = await registerUser(api);
    await createDevice(s, user.user.id);
    const { created } = await createItem(api, token, { text: "Library books due" });
    await settledItem(api, token, created.id);
    const analyze = s.app.services.analyze;
    assert.ok((await analyze.scheduled()) >= 1);
    const run = await finishedRun(api, token);
    assertEquals([run.reason, run.status, run.pushIds.length], ["SCHEDULED", "succeeded", 1]);
    await analyze.scheduled();
    await new Promise((r) => setTimeout(r, 300));
    assertEquals(expectStatus(await api.get("/api/analyze/runs", { token }), 200).items.length, 1);
    assertEquals(
      expectStatus(await api.get("/api/analyze/runs", { token: idle.accessToken }), 200).items,
      [],
    );
  },
);

suite.test("account deletion takes raw items, their files and runs", async (api, s) => {
  const user = await registerUser(api);
  const token = user.accessToken;
  const { created } = await createItem(api, token, {
    text: "Soon gone",
    pictures: [samplePhoto()],
  });
  await settledItem(api, token, created.id);
  expectStatus(await api.post("/api/analyze/trigger", { token }), 200);
  await finishedRun(api, token);
  const db = s.app.services.db;
  const keys =
    (await db.selectFrom("files").select("object_key").where("user_id", "=", user.user.id)
      .execute()).map((f) => f.object_key);
  assert.ok(keys.length >= 1);
  const reply = await api.delete("/auth/account", {
    token,
    body: { confirm: true, password: user.password },
  });
  assertEquals(reply.status, 204);
  const count = async (table: "raw_items" | "analyze_runs" | "files") =>
    (await db.selectFrom(table).select("id").where("user_id", "=", user.user.id).execute()).length;
  assertEquals([await count("raw_items"), await count("analyze_runs"), await count("files")], [
    0,
    0,
    0,
  ]);
  for (const key of keys) assertEquals(await s.app.services.storage.head(key), null);
});

suite.end();
