/**
 * The content pipeline end to end over HTTP with the offline model (CONTRACT.md "Content
 * pipeline"): upload → confirm → summarized → trigger → push in QUEUE → the device downloads an
 * 800x480 PNG; a second trigger pushes nothing twice.
 */
import { decode as decodePng } from "fast-png";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { createDevice, pushRow } from "./helpers/devices.ts";
import { eventually } from "./helpers/mqtt.ts";
import { createItem, finishedRun, samplePhoto, settledItem } from "./helpers/content.ts";

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

suite.end();
