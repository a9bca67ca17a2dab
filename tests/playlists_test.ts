// deno-lint-ignore-file no-explicit-any -- replies are untyped JSON; tests assert their shape
/**
 * Playlists (issue 37, CONTRACT.md "Screens that keep themselves current") over HTTP: CRUD and
 * its boundaries (another user, bad fields, another user's plugin or device), two displays of
 * one profile on one playlist sharing one drawing, a 5 s item rotating at the next poll with
 * `refresh_rate` at most the seconds left, weekday and time-window skipping in the playlist's
 * zone, the owner's push holding the rotation, a webhook post drawing the current item again
 * (unchanged data: the same filename), concurrent advances making one push, a deleted plugin's
 * items dropping out, no render for a sleeping display, the MCP tools, and the bounded history.
 */
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { call, type Client, client, registerUser } from "./helpers/http.ts";
import { startTestServer } from "./helpers/server.ts";
import { newMac } from "./helpers/displays.ts";
import { eventually } from "./helpers/mqtt.ts";
import { sql } from "kysely";

const TEXT = '<div class="layout"><span class="value value--xlarge">{{ word }}</span></div>';

/** A display (model `og`) set up and claimed by the user. */
async function displayOf(api: Client, token: string) {
  const mac = newMac("C3");
  const s = expectStatus(await api.get("/api/setup", { headers: { ID: mac, Model: "og" } }), 200);
  const claim = expectStatus(
    await api.post("/api/devices/claim", { token, body: { code: s.friendly_id } }),
    200,
  );
  return { mac, key: s.api_key as string, id: claim.device.id as string };
}

/** Sums a Prometheus histogram `_count` over the samples whose labels match. */
async function metric(url: string, name: string, labels: Record<string, string>) {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) {
      sum += Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return sum;
}

/** The weekday (0 = Sunday) of now in UTC, and one that is not today. */
const today = new Date().getUTCDay();
const notToday = (today + 3) % 7;

Deno.test({
  name: "playlists: CRUD, mirroring, rotation, schedule, holds, redraws, bounded history",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: "1" });
    const api = client(server.url);
    const services = server.app.services;
    try {
      const owner = await registerUser(api, "plist");
      const other = await registerUser(api, "plistx");
      const token = owner.accessToken;
      const plugin = async (word: string, strategy = "static") =>
        expectStatus(
          await api.post("/api/plugins", {
            token,
            body: {
              name: word,
              strategy,
              markup: { full: TEXT, halfVertical: TEXT },
              staticData: { word },
            },
          }),
          201,
        );
      const alpha = await plugin("Alpha");
      const beta = await plugin("Beta");
      const inbox = await plugin("Inbox", "webhook");
      const foreign = expectStatus(
        await api.post("/api/plugins", {
          token: other.accessToken,
          body: { name: "theirs", strategy: "static", markup: { full: TEXT } },
        }),
        201,
      );
      const one = await displayOf(api, token);
      const two = await displayOf(api, token);
      const poll = async (display: { mac: string; key: string }) =>
        expectStatus(
          await call(server.url, "GET", "/api/display", {
            headers: { ID: display.mac, "Access-Token": display.key },
          }),
          200,
        ) as any;
      const history = async (deviceId: string) =>
        expectStatus(
          await api.get(`/api/devices/${deviceId}/pushes?limit=50`, { token }),
          200,
        ).items as any[];
      const playlist = async (body: unknown) =>
        expectStatus(await api.post("/api/playlists", { token, body }), 201);
      const assign = async (deviceId: string, playlistId: string | null) =>
        expectStatus(
          await api.put(`/api/devices/${deviceId}/playlist`, { token, body: { playlistId } }),
          200,
        );

      await t.step("create, read, list, change, delete", async () => {
        const made = await playlist({
          name: "Hall",
          timeZone: "Europe/Berlin",
          items: [
            { pluginId: alpha.id },
            {
              mashup: { layout: "1Lx1R", pluginIds: [alpha.id, beta.id] },
              durationSeconds: 60,
              days: [1, 2],
              from: "07:00",
              until: "09:30",
            },
          ],
        });
        assertEquals(made.timeZone, "Europe/Berlin");
        assertEquals(made.deviceIds, [], "a new playlist runs nowhere");
        assertEquals(made.items[0], { pluginId: alpha.id, durationSeconds: 900 });
        assertEquals(made.items[1].mashup.layout, "1Lx1R");
        const utc = await playlist({ name: "Plain", items: [] });
        assertEquals(utc.timeZone, "UTC");
        assertEquals(
          expectStatus(await api.get(`/api/playlists/${made.id}`, { token }), 200).name,
          "Hall",
        );
        assertEquals(
          expectStatus(await api.get("/api/playlists", { token }), 200).map((p: any) => p.id),
          [utc.id, made.id],
        );
        const changed = expectStatus(
          await api.put(`/api/playlists/${made.id}`, { token, body: { name: "Lobby" } }),
          200,
        );
        assertEquals([changed.name, changed.items.length], ["Lobby", 2]);
        expectStatus(await api.delete(`/api/playlists/${utc.id}`, { token }), 204);
        expectError(await api.get(`/api/playlists/${utc.id}`, { token }), 404);
      });

      await t.step("refused: no token, another user, bad fields, foreign plugin", async () => {
        const mine = await playlist({ name: "Mine", items: [{ pluginId: alpha.id }] });
        expectError(await api.get("/api/playlists"), 401);
        const theirs = other.accessToken;
        expectError(await api.get(`/api/playlists/${mine.id}`, { token: theirs }), 404);
        expectError(
          await api.put(`/api/playlists/${mine.id}`, { token: theirs, body: { name: "x" } }),
          404,
        );
        expectError(await api.delete(`/api/playlists/${mine.id}`, { token: theirs }), 404);
        expectError(await api.get("/api/playlists/nope", { token }), 400);
        const bad = async (items: unknown, message: RegExp, timeZone?: string) =>
          expectError(
            await api.post("/api/playlists", { token, body: { name: "Bad", items, timeZone } }),
            400,
            message,
          );
        await bad([{ pluginId: alpha.id, durationSeconds: 4 }], /durationSeconds/);
        await bad([{ pluginId: alpha.id, durationSeconds: 86_401 }], /durationSeconds/);
        await bad([{ pluginId: alpha.id, from: "25:00" }], /from/);
        await bad([{ pluginId: alpha.id, days: [7] }], /days/);
        await bad([{ pluginId: alpha.id }], /timeZone/, "Mars/Olympus");
        await bad([{ mashup: { layout: "2x2", pluginIds: [alpha.id] } }], /pluginIds/);
        await bad([{ mashup: { layout: "9x9", pluginIds: [alpha.id] } }], /items\.0/);
        await bad([{ pluginId: alpha.id }, { pluginId: foreign.id }], /items\.1: plugin/);
        // Devices answer as every device route: another user's 403, unknown 404.
        const theirDisplay = await displayOf(api, other.accessToken);
        expectError(
          await api.put(`/api/devices/${theirDisplay.id}/playlist`, {
            token,
            body: { playlistId: mine.id },
          }),
          403,
        );
        expectError(
          await api.put(`/api/devices/${crypto.randomUUID()}/playlist`, {
            token,
            body: { playlistId: mine.id },
          }),
          404,
        );
        // Another user's playlist on one's own device: 404.
        expectError(
          await api.put(`/api/devices/${theirDisplay.id}/playlist`, {
            token: theirs,
            body: { playlistId: mine.id },
          }),
          404,
          /Playlist not found/,
        );
        assertEquals(
          expectStatus(await api.get(`/api/devices/${one.id}/playlist`, { token }), 200),
          { playlistId: null },
        );
      });

      await t.step("two displays of one profile on one playlist share one drawing", async () => {
        const shared = await playlist({
          name: "Mirror",
          items: [{ pluginId: beta.id, durationSeconds: 3600 }],
        });
        const before = await metric(server.url, "render_duration_seconds_count", {
          kind: "screen",
        });
        assertEquals(await assign(one.id, shared.id), { playlistId: shared.id });
        assertEquals(await assign(two.id, shared.id), { playlistId: shared.id });
        assertEquals(
          expectStatus(await api.get(`/api/devices/${two.id}/playlist`, { token }), 200),
          { playlistId: shared.id },
        );
        // The playlist lists the devices running it (one call for a page of all playlists).
        const mirrored = [one.id, two.id].sort();
        assertEquals(
          expectStatus(await api.get(`/api/playlists/${shared.id}`, { token }), 200).deviceIds,
          mirrored,
        );
        assertEquals(
          expectStatus(await api.get("/api/playlists", { token }), 200)
            .find((p: any) => p.id === shared.id).deviceIds,
          mirrored,
        );
        // Shown at once when rendered (PUBLISHED without waiting for a poll's rotation).
        await eventually(async () => {
          const latest = [(await history(one.id))[0], (await history(two.id))[0]];
          return latest.every((p) => p?.source === "playlist" && p.status === "PUBLISHED");
        }, "both displays' playlist pushes published");
        const [a, b] = [await poll(one), await poll(two)];
        assertEquals(a.filename, b.filename, "the same picture");
        const after = await metric(server.url, "render_duration_seconds_count", {
          kind: "screen",
        });
        assertEquals(after - before, 1, "drawn once for both displays");
        const [item] = await history(one.id);
        assertEquals([item.source, item.pluginId], ["playlist", beta.id]);
        // A refresh_rate never past the item's end (3600 s > the 900 s default: no cap).
        assertEquals(a.refresh_rate, 900);
        assertEquals(await assign(two.id, null), { playlistId: null });
        assertEquals(
          expectStatus(await api.get(`/api/playlists/${shared.id}`, { token }), 200).deviceIds,
          [one.id],
        );
      });

      await t.step(
        "devices whose items end together advance together; one drawing, each its own push",
        async () => {
          const three = await displayOf(api, token);
          const displays = [one, two, three];
          const together = await playlist({
            name: "Together",
            items: [
              { pluginId: alpha.id, durationSeconds: 3600 },
              { pluginId: beta.id, durationSeconds: 3600 },
            ],
          });
          for (const d of displays) await assign(d.id, together.id);
          const latest = async () =>
            await Promise.all(displays.map(async (d) => (await history(d.id))[0]));
          await eventually(
            async () =>
              (await latest()).every((p) =>
                p?.source === "playlist" && p.pluginId === alpha.id && p.status === "PUBLISHED"
              ),
            "the first item published on all three",
          );
          // One item has ended, the others end within 5 s: the first's advance takes all three.
          const now = Date.now();
          for (const [i, d] of displays.entries()) {
            await services.db.updateTable("playlist_devices")
              .set({ item_ends_at: new Date(now + (i - 1) * 2000) })
              .where("device_id", "=", d.id).execute();
          }
          const { rows: [{ at }] } = await sql<{ at: Date }>`select now() as at`
            .execute(services.db);
          await services.playlists.advanceTogether(one.id);
          const rotations = await services.db.selectFrom("playlist_devices")
            .select(["device_id", "item_index", "item_ends_at"])
            .where("device_id", "in", displays.map((d) => d.id)).execute();
          assertEquals(rotations.map((r) => r.item_index), [1, 1, 1]);
          const ends = rotations.map((r) => r.item_ends_at.getTime());
          assert(Math.max(...ends) - Math.min(...ends) < 1000, "their next items end together");
          await eventually(
            async () =>
              (await latest()).every((p) =>
                p?.source === "playlist" && p.pluginId === beta.id && p.status === "PUBLISHED"
              ),
            "the second item published on all three",
          );
          // Each device has its own push, file record and bitmaps (under its own prefix), and
          // the first item's push expired; all show the same picture.
          const pushes = await services.db.selectFrom("pushes")
            .select(["device_id", "render_prefix", "file_id", "status"])
            .where("device_id", "in", displays.map((d) => d.id))
            .where("status", "=", "PUBLISHED").execute();
          assertEquals(pushes.length, 3);
          for (const p of pushes) {
            assert(p.render_prefix?.includes(`/${p.device_id}/`), "its own device's files");
            assert(p.file_id, "a file record");
          }
          assertEquals(new Set(pushes.map((p) => p.file_id)).size, 3);
          const polls = await Promise.all(displays.map((d) => poll(d)));
          assertEquals(new Set(polls.map((p) => p.filename)).size, 1, "the same picture");
          for (const p of polls) {
            const image = await fetch(p.image_url);
            assertEquals(image.status, 200);
            await image.body?.cancel();
          }
          // Their next advance: a job for the first, one for the two that went along.
          const { rows: jobs } = await sql<{ data: { deviceId: string; along?: string[] } }>`
            select data from pgboss.job where name = 'playlist-advance' and created_on >= ${at}
            and data->>'deviceId' in (${sql.join(displays.map((d) => d.id))})`.execute(services.db);
          assertEquals(
            jobs.flatMap((j) => [j.data.deviceId, ...(j.data.along ?? [])]).sort(),
            displays.map((d) => d.id).sort(),
          );
          assertEquals(jobs.length, 2, "the two that went along share one job");
          // The first of them left the playlist meanwhile: the job still takes the other two.
          await assign(one.id, null);
          await services.db.updateTable("playlist_devices").set({ item_ends_at: new Date(0) })
            .where("device_id", "in", [two.id, three.id]).execute();
          await services.playlists.handle({ deviceId: one.id, along: [two.id, three.id] });
          const after = await services.db.selectFrom("playlist_devices")
            .select(["device_id", "item_index"])
            .where("device_id", "in", [one.id, two.id, three.id]).execute();
          assertEquals(after.map((r) => r.item_index), [0, 0]);
          for (const d of displays) await assign(d.id, null);
        },
      );

      await t.step(
        "a 5 s item rotates at the next poll; refresh_rate <= seconds left",
        async () => {
          const quick = await playlist({
            name: "Quick",
            items: [
              { pluginId: alpha.id, durationSeconds: 5 },
              { pluginId: beta.id, durationSeconds: 5 },
            ],
          });
          await assign(one.id, quick.id);
          const first = await eventually(async () => {
            const reply = await poll(one);
            const [latest] = await history(one.id);
            return latest?.pluginId === alpha.id && latest.status !== "PREPARE" &&
              reply.image_url &&
              reply;
          }, "the first item shown");
          assert(first.refresh_rate <= 5 && first.refresh_rate >= 5, "refresh_rate is 5");
          const next = await eventually(async () => {
            const reply = await poll(one);
            return reply.filename !== first.filename && reply;
          }, "the second item at a later poll");
          assert(next.refresh_rate <= 5);
          const shown = (await history(one.id)).filter((p) => p.source === "playlist");
          assert(shown.some((p) => p.pluginId === beta.id));
        },
      );

      await t.step(
        "items outside their days or hours are skipped; none due: nothing new",
        async () => {
          const hour = new Date().getUTCHours();
          const away = `${String((hour + 2) % 24).padStart(2, "0")}:00`;
          const later = `${String((hour + 3) % 24).padStart(2, "0")}:00`;
          const skipping = await playlist({
            name: "Skipping",
            items: [
              { pluginId: alpha.id, days: [notToday] },
              { pluginId: alpha.id, from: away, until: later },
              { pluginId: inbox.id, days: [today] },
            ],
          });
          await assign(one.id, skipping.id);
          await eventually(async () => {
            const [latest] = await history(one.id);
            return latest?.pluginId === inbox.id;
          }, "the one due item");
          const state = await services.db.selectFrom("playlist_devices").selectAll()
            .where("device_id", "=", one.id).executeTakeFirstOrThrow();
          assertEquals(state.item_index, 2);
          // Another zone's Tuesday is not ours: an item of a day only there is skipped too.
          const empty = await playlist({
            name: "Empty",
            items: [{ pluginId: alpha.id, days: [notToday] }],
          });
          const count = (await history(one.id)).length;
          await assign(one.id, empty.id);
          await eventually(async () => {
            const row = await services.db.selectFrom("playlist_devices").selectAll()
              .where("device_id", "=", one.id).executeTakeFirstOrThrow();
            return row.playlist_id === empty.id && row.item_ends_at > new Date(Date.now() + 30_000);
          }, "the empty schedule waiting");
          assertEquals((await history(one.id)).length, count, "no push for an empty schedule");
        },
      );

      await t.step("the owner's push holds the rotation; advances never race", async () => {
        const long = await playlist({
          name: "Long",
          items: [
            { pluginId: alpha.id, durationSeconds: 30 },
            { pluginId: beta.id, durationSeconds: 30 },
          ],
        });
        await assign(one.id, long.id);
        await eventually(async () => (await history(one.id))[0]?.pluginId === alpha.id);
        expectStatus(
          await api.post(`/api/plugins/${inbox.id}/push`, { token, body: { deviceId: one.id } }),
          201,
        );
        const held = await services.db.selectFrom("playlist_devices").selectAll()
          .where("device_id", "=", one.id).executeTakeFirstOrThrow();
        assert(held.hold_until !== null);
        const seconds = (held.hold_until.getTime() - Date.now()) / 1000;
        assert(seconds > 25 && seconds <= 30, `held for the item's 30 s (${seconds})`);
        // Due now: still held, so no playlist push.
        await services.db.updateTable("playlist_devices").set({ item_ends_at: new Date(0) })
          .where("device_id", "=", one.id).execute();
        assertEquals(await services.playlists.advance(one.id), null);
        // The hold over: two workers racing make one push.
        await services.db.updateTable("playlist_devices")
          .set({ item_ends_at: new Date(0), hold_until: null })
          .where("device_id", "=", one.id).execute();
        const raced = await Promise.all([
          services.playlists.advance(one.id),
          services.playlists.advance(one.id),
          services.playlists.advance(one.id),
        ]);
        assertEquals(raced.filter((id) => id !== null).length, 1);
      });

      await t.step(
        "a webhook post draws the current item again; same data, same filename",
        async () => {
          const hook = await playlist({
            name: "Hook",
            items: [{ pluginId: inbox.id, durationSeconds: 3600 }],
          });
          await assign(one.id, hook.id);
          const before = await eventually(async () => {
            const [latest] = await history(one.id);
            const reply = await poll(one);
            return latest?.pluginId === inbox.id && latest.status !== "PREPARE" &&
              reply.image_url && reply;
          }, "the webhook plugin shown");
          const pushes = (await history(one.id)).length;
          const post = (word: string) =>
            call(server.url, "POST", new URL(inbox.webhookUrl).pathname, {
              body: { merge_variables: { word } },
            });
          expectStatus(await post("Changed"), 200);
          const changed = await eventually(async () => {
            const reply = await poll(one);
            return reply.filename !== before.filename && reply;
          }, "the new data shown");
          expectStatus(await post("Changed"), 200);
          await eventually(async () => {
            const items = await history(one.id);
            return items.length >= pushes + 2 && items[0].status !== "PREPARE" &&
              items[0].status !== "QUEUE";
          }, "the same data drawn again");
          assertEquals((await poll(one)).filename, changed.filename, "no redraw on the panel");
        },
      );

      await t.step(
        "a polling plugin on a long item is fetched again by its interval and drawn again",
        async () => {
          let reading = 0;
          const source = Deno.serve(
            { port: 0, hostname: "127.0.0.1", onListen: () => {} },
            () => Response.json({ word: `Reading${reading++}` }),
          );
          try {
            const polled = expectStatus(
              await api.post("/api/plugins", {
                token,
                body: {
                  name: "Polled",
                  strategy: "polling",
                  markup: { full: TEXT },
                  polling: { urls: [`http://127.0.0.1:${source.addr.port}/now`] },
                },
              }),
              201,
            );
            const long = await playlist({
              name: "Long",
              items: [{ pluginId: polled.id, durationSeconds: 86400 }],
            });
            await assign(two.id, long.id);
            const first = await eventually(async () => {
              const reply = await poll(two);
              const [latest] = await history(two.id);
              return latest?.pluginId === polled.id && latest.status !== "PREPARE" &&
                reply.image_url && reply;
            }, "the polling plugin shown");
            // Its refresh interval passed: the minute's sweep fetches it again and redraws.
            await services.db.updateTable("plugins")
              .set({ data_polled_at: new Date(Date.now() - 3_600_000) })
              .where("id", "=", polled.id).execute();
            await services.playlists.sweep();
            await eventually(async () => {
              const reply = await poll(two);
              return reply.filename !== first.filename && reply;
            }, "the new reading shown");
            assert.ok(reading >= 2, `fetched ${reading} times`);
          } finally {
            await source.shutdown();
            await assign(two.id, null);
          }
        },
      );

      await t.step("a deleted plugin's items drop out", async () => {
        const gone = await plugin("Gone");
        const list = await playlist({
          name: "Dropping",
          items: [{ pluginId: gone.id }, { pluginId: alpha.id }],
        });
        expectStatus(await api.delete(`/api/plugins/${gone.id}`, { token }), 204);
        const after = expectStatus(await api.get(`/api/playlists/${list.id}`, { token }), 200);
        assertEquals(after.items, [{ pluginId: alpha.id, durationSeconds: 900 }]);
      });

      await t.step(
        "a sleeping display gets no render; the rotation waits for its wake-up",
        async () => {
          const hhmm = (d: Date) => d.toISOString().slice(11, 16);
          const profile = `/api/devices/${one.id}/display-profile`;
          const start = hhmm(new Date(Date.now() - 3600_000));
          const end = hhmm(new Date(Date.now() + 2 * 3600_000));
          expectStatus(
            await api.put(profile, {
              token,
              body: { sleepWindow: { start, end, timeZone: "UTC" } },
            }),
            200,
          );
          const night = await playlist({ name: "Night", items: [{ pluginId: alpha.id }] });
          const count = (await history(one.id)).length;
          await assign(one.id, night.id);
          const state = await eventually(async () => {
            const row = await services.db.selectFrom("playlist_devices").selectAll()
              .where("device_id", "=", one.id).executeTakeFirstOrThrow();
            return row.item_ends_at > new Date(Date.now() + 3600_000) && row;
          }, "the rotation waiting for the wake-up");
          assertEquals(state.item_index, -1);
          assertEquals((await history(one.id)).length, count, "nothing drawn while asleep");
          expectStatus(await api.put(profile, { token, body: { sleepWindow: null } }), 200);
        },
      );

      await t.step("MCP: list_playlists and assign_playlist act as the token's user", async () => {
        const pat = expectStatus(
          await api.post("/api/personal-access-tokens", { token, body: { name: "assistant" } }),
          201,
        ).token as string;
        const mcp = new McpClient({ name: "playlists-test", version: "1.0.0" });
        await mcp.connect(
          new StreamableHTTPClientTransport(new URL("/mcp", server.url), {
            requestInit: { headers: { authorization: `Bearer ${pat}` } },
          }),
        );
        try {
          const text = (result: any) => result.content.find((c: any) => c.type === "text").text;
          const lists = JSON.parse(
            text(await mcp.callTool({ name: "list_playlists", arguments: {} })),
          );
          const target = lists.find((p: any) => p.name === "Hook");
          const assigned = await mcp.callTool({
            name: "assign_playlist",
            arguments: { deviceId: two.id, playlistId: target.id },
          });
          assertEquals(JSON.parse(text(assigned)), { playlistId: target.id });
          assertEquals(
            expectStatus(await api.get(`/api/devices/${two.id}/playlist`, { token }), 200),
            { playlistId: target.id },
          );
        } finally {
          await mcp.close();
        }
      });

      await t.step("playlist pushes beyond the newest 50 of a device are deleted", async () => {
        await assign(one.id, null);
        const many = await playlist({ name: "Many", items: [{ pluginId: beta.id }] });
        await assign(two.id, many.id);
        for (let i = 0; i < 55; i++) {
          await services.db.updateTable("playlist_devices").set({ item_ends_at: new Date(0) })
            .where("device_id", "=", two.id).execute();
          await services.playlists.advance(two.id);
        }
        const count = await services.db.selectFrom("pushes")
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .where("device_id", "=", two.id).executeTakeFirstOrThrow();
        assert(Number(count.n) <= 51, `at most 50 kept beside the latest (${count.n})`);

        // Devices advanced together are trimmed together, each to its own newest.
        await assign(one.id, many.id);
        for (let i = 0; i < 4; i++) {
          for (const id of [one.id, two.id]) {
            await services.db.updateTable("playlist_devices").set({ item_ends_at: new Date(0) })
              .where("device_id", "=", id).execute();
            await services.playlists.advance(id);
          }
        }
        await services.pushes.trimScheduled([one.id, two.id], "playlistId", 2);
        for (const id of [one.id, two.id]) {
          const [{ n }] = await services.db.selectFrom("pushes")
            .select((eb) => eb.fn.countAll<string>().as("n"))
            .where("device_id", "=", id).where(sql<boolean>`params ->> 'playlistId' is not null`)
            .execute();
          assert(Number(n) >= 2 && Number(n) <= 3, `2 kept beside the latest (${n})`);
        }
      });
    } finally {
      await server.shutdown();
    }
  },
});
