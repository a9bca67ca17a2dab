// deno-lint-ignore-file no-explicit-any -- Messages API bodies are untyped JSON
/**
 * The content pipeline with Claude: the real `@anthropic-ai/sdk` against a local server that
 * speaks the Messages API (`ANTHROPIC_BASE_URL`), scripted per test. The summary stage (text and
 * vision), the agent's tool loop, a bad `create_push` corrected, the step limit, a model error.
 */
import { assert, assertEquals, expectStatus } from "./helpers/assert.ts";
import { registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { createDevice, pushRow } from "./helpers/devices.ts";
import { eventually } from "./helpers/mqtt.ts";
import { createItem, finishedRun, samplePhoto, settledItem } from "./helpers/content.ts";
import {
  type FakeReply,
  isSummary,
  lastResults,
  message,
  startFakeAnthropic,
  toolUse,
} from "./helpers/fake_anthropic.ts";

const fake = startFakeAnthropic();
const MAX_STEPS = 6;
const suite = serverSuite("analyze with Claude", {
  ANTHROPIC_API_KEY: fake.key,
  ANTHROPIC_BASE_URL: fake.url,
  ANALYZE_MAX_STEPS: String(MAX_STEPS),
});

const SUMMARY = {
  title: "Dentist on Friday",
  summary: "A dentist appointment on Friday at 15:00.",
  keyPoints: ["Friday 15:00", "Bring the insurance card"],
  kind: "event",
  language: "en",
  suggestedTemplate: "reminder",
};

/** Answers summary requests with `SUMMARY` (and a description per picture). */
function summaryReply(body: any): FakeReply {
  const pictures = body.messages[0].content.filter((b: any) => b.type === "image").length;
  return message([
    toolUse("record_summary", {
      ...SUMMARY,
      imageDescriptions: Array.from({ length: pictures }, (_, i) => `Picture ${i + 1}: a hill`),
    }),
  ], { model: "claude-haiku-4-5" });
}

/** A user with a bound device and one summarised note. */
async function setup(api: Parameters<Parameters<typeof suite.test>[1]>[0], s: any) {
  const user = await registerUser(api);
  const token = user.accessToken;
  const device = await createDevice(s, user.user.id);
  const { created } = await createItem(api, token, {
    text: "Dentist on 2025-03-21 at 15:00, bring the insurance card",
  });
  const item = await settledItem(api, token, created.id);
  assertEquals(item.status, "summarized", JSON.stringify(item));
  return { user, token, device, itemId: created.id as string };
}

suite.test("summary: text and vision through the SDK, with the key and models", async (api) => {
  fake.reset();
  fake.respond = ({ body }) => summaryReply(body);
  const user = await registerUser(api);
  const token = user.accessToken;
  const { created } = await createItem(api, token, {
    text: "Dentist on Friday",
    pictures: [samplePhoto(1600, 1200)],
  });
  const item = await settledItem(api, token, created.id);
  assertEquals(item.status, "summarized", JSON.stringify(item));
  assertEquals(item.summary_content, SUMMARY);
  const [request] = fake.requests;
  assert.ok(request.apiKey === fake.key || request.bearer === fake.key);
  const body = request.body;
  assertEquals(body.model, "claude-haiku-4-5");
  assertEquals(body.tool_choice, { type: "tool", name: "record_summary" });
  assert.match(body.messages[0].content[0].text, /Dentist on Friday/);
  const image = body.messages[0].content.find((b: any) => b.type === "image");
  assertEquals(image.source.type, "base64");
  assertEquals(image.source.media_type, "image/jpeg");
  // The vision model gets a preview of at most 1024 px a side, never the 10 MB upload.
  const jpeg = Uint8Array.from(atob(image.source.data), (c) => c.charCodeAt(0));
  assert.ok(jpeg.length < 400_000, `preview of ${jpeg.length} bytes`);
  assertEquals([jpeg[0], jpeg[1]], [0xff, 0xd8]);
});

suite.test(
  "agent: tools in a loop, a bad create_push corrected, a push in QUEUE with three files",
  async (api, s) => {
    const { user, token, device, itemId } = await setup(api, s);
    fake.reset();
    const seen: any[] = [];
    fake.respond = ({ body }, n) => {
      if (isSummary(body)) return summaryReply(body);
      seen.push(body);
      switch (n) {
        case 1:
          return message([toolUse("list_notes", {}), toolUse("list_devices", {})]);
        case 2:
          return message([toolUse("read_note_content", { id: itemId })]);
        case 3: // `body` is required by the note template.
          return message([
            toolUse("create_push", {
              deviceId: device.id,
              template: "note",
              variables: { title: "Dentist" },
              rawItemIds: [itemId],
            }),
          ]);
        case 4:
          return message([
            toolUse("create_push", {
              deviceId: device.id,
              template: "reminder",
              variables: { title: "Dentist", date: "2025-03-21", note: "Insurance card" },
              rawItemIds: [itemId],
              title: "Dentist",
              summary: "Friday at 15:00.",
            }),
          ]);
        default:
          return message([{ type: "text", text: "Pushed the dentist reminder." }]);
      }
    };
    expectStatus(await api.post("/api/analyze/trigger", { token }), 200);
    const run = await finishedRun(api, token);
    assertEquals(run.status, "succeeded", JSON.stringify(run));
    assertEquals(run.model, "claude-sonnet-4-6");
    assertEquals(seen.length, 5);
    assertEquals(seen[0].model, "claude-sonnet-4-6");
    assertEquals(
      seen[0].tools.map((t: any) => t.name).sort(),
      [
        "create_push",
        "get_push_history",
        "get_template_detail",
        "get_template_schema",
        "list_devices",
        "list_notes",
        "list_templates",
        "read_note_content",
      ],
    );
    // The results went back to the model: the notes, then the refusal naming the variable.
    const notes = JSON.parse(lastResults(seen[1])[0].content);
    assertEquals(notes.notes.map((n: any) => n.id), [itemId]);
    const refusal = lastResults(seen[3])[0];
    assertEquals(refusal.is_error, true);
    assert.match(refusal.content, /Variable body is required/);
    assertEquals(
      run.steps.map((step: any) => [step.tool, "error" in step]),
      [
        ["list_notes", false],
        ["list_devices", false],
        ["read_note_content", false],
        ["create_push", true],
        ["create_push", false],
      ],
    );
    assertEquals(run.pushIds.length, 1);
    const pushId = run.pushIds[0];
    const row = await eventually(async () => {
      const r = await pushRow(s, pushId);
      return r.status === "QUEUE" ? r : null;
    }, "push rendered");
    assertEquals([row.title, row.summary, row.template], [
      "Dentist",
      "Friday at 15:00.",
      "reminder",
    ]);
    const prefix = `render/${user.user.id}/${device.id}/${pushId}/`;
    assertEquals(row.render_prefix, prefix);
    const storage = s.app.services.storage;
    assertEquals((await storage.get(`${prefix}image2.raw`))?.length, 48000);
    assertEquals((await storage.get(`${prefix}image4.raw`))?.length, 96000);
    const png = await storage.get(`${prefix}image.png`);
    assertEquals([...png!.subarray(1, 4)], [80, 78, 71]);
    const item = expectStatus(await api.get(`/api/raw-items/${itemId}`, { token }), 200);
    assertEquals(item.pushIds, [pushId]);
  },
);

suite.test(
  "agent: another user's note, device and picture do not exist for the tools",
  async (api, s) => {
    const { token, device, itemId } = await setup(api, s);
    const other = await setup(api, s);
    const { created } = await createItem(api, other.token, { pictures: [samplePhoto()] });
    const theirPicture = (await settledItem(api, other.token, created.id)).attachments[0].fileId;
    fake.reset();
    const results: any[] = [];
    fake.respond = ({ body }, n) => {
      if (isSummary(body)) return summaryReply(body);
      results.push(...lastResults(body));
      const push = (input: Record<string, unknown>) =>
        toolUse("create_push", {
          deviceId: device.id,
          template: "note",
          variables: { body: "x" },
          rawItemIds: [itemId],
          ...input,
        });
      if (n > 1) return message([{ type: "text", text: "Done." }]);
      return message([
        toolUse("read_note_content", { id: other.itemId }),
        toolUse("get_push_history", { deviceId: other.device.id }),
        push({ deviceId: other.device.id }),
        push({ rawItemIds: [other.itemId] }),
        push({ template: "photo", variables: { photo: theirPicture } }),
        push({ variables: { body: "Nul\u0000 in the middle" }, title: "A\u0000B" }),
      ]);
    };
    expectStatus(await api.post("/api/analyze/trigger", { token }), 200);
    const run = await finishedRun(api, token);
    assertEquals(run.status, "succeeded", JSON.stringify(run));
    assertEquals(results.map((r) => r.is_error === true), [true, true, true, true, true, false]);
    assert.match(results[0].content, /not found/);
    assert.match(results[1].content, /Device .* not found/);
    assert.match(results[2].content, /Device .* not found/);
    assert.match(results[3].content, /not found/);
    assert.match(results[4].content, /Variable photo/);
    assertEquals(run.pushIds.length, 1);
    assertEquals((await pushRow(s, run.pushIds[0])).title, "AB");
    const theirs = expectStatus(await api.get("/api/analyze/runs", { token: other.token }), 200);
    assertEquals(theirs.items, []);
  },
);

suite.test(
  "agent: create_push refuses a picture that is not a file id and deep nesting, by name",
  async (api, s) => {
    fake.reset();
    fake.respond = ({ body }) => summaryReply(body);
    const { token, device, itemId } = await setup(api, s);
    const results: any[] = [];
    let deep: unknown = "leaf";
    for (let i = 0; i < 100; i++) deep = [deep];
    fake.respond = ({ body }, n) => {
      if (isSummary(body)) return summaryReply(body);
      results.push(...lastResults(body));
      const push = (template: string, variables: Record<string, unknown>) =>
        toolUse("create_push", { deviceId: device.id, template, variables, rawItemIds: [itemId] });
      if (n > 1) return message([{ type: "text", text: "Done." }]);
      // Issue 25 finding 5: the same check as the preview (a path reached the files query).
      return message([
        push("photo", { photo: "../../secrets.json" }),
        push("note", { body: "x", a: deep }),
      ]);
    };
    expectStatus(await api.post("/api/analyze/trigger", { token }), 200);
    const run = await finishedRun(api, token);
    assertEquals(run.status, "succeeded", JSON.stringify(run));
    assertEquals(results.map((r) => r.is_error === true), [true, true]);
    assert.match(results[0].content, /Variable photo must be a file id \(a UUID\)/);
    assert.match(results[1].content, /Variable a is nested deeper than 32 levels/);
    assertEquals(run.pushIds, []);
  },
);

suite.test("agent: the step limit stops a model that never finishes", async (api, s) => {
  const { token } = await setup(api, s);
  fake.reset();
  let calls = 0;
  fake.respond = ({ body }) => {
    if (isSummary(body)) return summaryReply(body);
    calls++;
    return message([toolUse("list_devices", {})]);
  };
  expectStatus(await api.post("/api/analyze/trigger", { token }), 200);
  const run = await finishedRun(api, token);
  assertEquals(run.status, "failed");
  assert.match(run.error, /step limit \(6 model calls\)/);
  assertEquals(calls, MAX_STEPS);
  assertEquals(run.steps.length, MAX_STEPS);
  assert.ok(run.finishedAt);
});

suite.test("agent: a model error leaves the run failed with the reason", async (api, s) => {
  const { token } = await setup(api, s);
  fake.reset();
  let calls = 0;
  fake.respond = ({ body }) => {
    if (isSummary(body)) return summaryReply(body);
    calls++;
    return { status: 400, type: "invalid_request_error", error: "max_tokens is too large" };
  };
  expectStatus(await api.post("/api/analyze/trigger", { token }), 200);
  const run = await finishedRun(api, token);
  assertEquals(run.status, "failed");
  assert.match(run.error, /400.*max_tokens is too large/);
  assertEquals(run.pushIds, []);
  // A request the provider refuses is not retried.
  assertEquals(calls, 1);
});

suite.test(
  "triggers while a run is queued or running stack nothing, also when concurrent",
  async (api, s) => {
    const { token } = await setup(api, s);
    fake.reset();
    let release!: () => void;
    const held = new Promise<void>((resolve) => release = resolve);
    let started!: () => void;
    const running = new Promise<void>((resolve) => started = resolve);
    let calls = 0;
    fake.respond = async ({ body }) => {
      if (isSummary(body)) return summaryReply(body);
      calls++;
      started();
      await held;
      return message([{ type: "text", text: "Nothing to push." }]);
    };
    const burst = () =>
      Promise.all(Array.from({ length: 15 }, () => api.post("/api/analyze/trigger", { token })));
    // A burst with nothing queued: one run is added, the rest find it queued.
    for (const reply of await burst()) assertEquals(expectStatus(reply, 200), { status: "queued" });
    await running;
    // A burst while it runs adds nothing either.
    for (const reply of await burst()) assertEquals(expectStatus(reply, 200), { status: "queued" });
    const during = expectStatus(await api.get("/api/analyze/runs", { token }), 200).items;
    assertEquals(during.map((r: any) => r.status), ["running"]);
    release();
    const run = await finishedRun(api, token);
    assertEquals(run.status, "succeeded");
    assertEquals(calls, 1);
    const after = expectStatus(await api.get("/api/analyze/runs", { token }), 200).items;
    assertEquals(after.length, 1);
    // Once it has finished, a trigger queues the next run.
    expectStatus(await api.post("/api/analyze/trigger", { token }), 200);
    await finishedRun(api, token, 2);
  },
);

suite.test("summary: a model error on the last attempt leaves the item failed", async (api) => {
  fake.reset();
  fake.respond = () => ({ status: 401, type: "authentication_error", error: "bad key" });
  const user = await registerUser(api);
  const { created } = await createItem(api, user.accessToken, { text: "Anything" });
  const item = await settledItem(api, user.accessToken, created.id);
  assertEquals(item.status, "failed");
  assert.match(item.error, /401.*bad key/);
  assertEquals(item.summary_content, null);
});

suite.end();

Deno.test({
  name: "analyze with Claude: fake server closes",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () => fake.close(),
});
