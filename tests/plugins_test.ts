// deno-lint-ignore-file no-explicit-any -- replies are untyped JSON; tests assert their shape
/**
 * Plugins (issue 36, CONTRACT.md "Screens that keep themselves current") over HTTP: CRUD and its
 * boundaries (another user, a PAT, no token), TRMNL's webhook inbox (strategies, limits, the
 * hourly allowance, concurrent posts), polling through the outbound guard (last good data kept,
 * `plugin.data_failed`), previews of exactly the size and depth asked, a plugin shown on a
 * display, recipes in and out, and hostile markup answered within the budget.
 */
import { unzipSync, zipSync } from "fflate";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { call, client, registerUser } from "./helpers/http.ts";
import { startTestServer } from "./helpers/server.ts";
import { claimedDisplay } from "./helpers/displays.ts";
import { eventually } from "./helpers/mqtt.ts";

const WEATHER = '<div class="layout layout--col gap--small"><span class="value value--xlarge">' +
  '{{ temperature }}°</span><span class="label">{{ room | upcase }}</span></div>';

/** The size, bit depth and colour type of a PNG, from its IHDR. */
function pngHead(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    width: view.getUint32(16),
    height: view.getUint32(20),
    depth: bytes[24],
    colour: bytes[25],
  };
}

async function bytesOf(url: string, path: string, token: string) {
  const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    body: new Uint8Array(await res.arrayBuffer()),
  };
}

/** A local JSON API for polling plugins: `/weather` answers, `/broken` 500s, `/list` an array. */
function startDataServer() {
  const seen: string[] = [];
  let temperature = 20;
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    seen.push(`${req.method} ${url.pathname}${url.search} ${req.headers.get("x-key") ?? ""}`);
    if (url.pathname === "/weather") {
      return Response.json({ temperature: temperature++, room: "attic" });
    }
    if (url.pathname === "/list") return Response.json([1, 2, 3]);
    return new Response("down", { status: 500 });
  });
  return {
    seen,
    url: (path: string) => `http://127.0.0.1:${server.addr.port}${path}`,
    close: () => server.shutdown(),
  };
}

Deno.test({
  name: "plugins: CRUD, ownership, webhook inbox, polling, previews, pushes, recipes",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const data = startDataServer();
    const server = await startTestServer({
      WEBHOOK_ALLOW_PRIVATE: "1",
      PLUGIN_WEBHOOKS_PER_HOUR: "6",
    });
    const api = client(server.url);
    try {
      const owner = await registerUser(api, "plug");
      const other = await registerUser(api, "plugx");
      const token = owner.accessToken;
      const pat = expectStatus(
        await api.post("/api/personal-access-tokens", { token, body: { name: "script" } }),
        201,
      ).token as string;
      let plugin: any;

      await t.step("create, read, list, change; a PAT acts as its user", async () => {
        plugin = expectStatus(
          await api.post("/api/plugins", {
            token,
            body: { name: "Living room", strategy: "webhook", markup: { full: WEATHER } },
          }),
          201,
        );
        assertEquals(plugin.strategy, "webhook");
        assertEquals(plugin.refreshMinutes, 15);
        assert.match(plugin.webhookUrl, /\/api\/custom_plugins\/[0-9a-f-]{36}$/);
        assertEquals(
          expectStatus(await api.get(`/api/plugins/${plugin.id}`, { token: pat }), 200).id,
          plugin.id,
        );
        assertEquals(
          expectStatus(await api.get("/api/plugins", { token: pat }), 200).map((p: any) => p.id),
          [plugin.id],
        );
        const changed = expectStatus(
          await api.put(`/api/plugins/${plugin.id}`, {
            token: pat,
            body: { name: "Lounge", refreshMinutes: 30 },
          }),
          200,
        );
        assertEquals([changed.name, changed.refreshMinutes, changed.markup.full], [
          "Lounge",
          30,
          WEATHER,
        ]);
        assertEquals(changed.webhookUrl, plugin.webhookUrl, "the inbox URL is stable");
      });

      await t.step("refused: no token, another user, bad fields", async () => {
        expectError(await api.get("/api/plugins"), 401);
        const otherToken = other.accessToken;
        expectError(
          await api.get(`/api/plugins/${plugin.id}`, { token: otherToken }),
          404,
          /Plugin not found/,
        );
        expectError(
          await api.put(`/api/plugins/${plugin.id}`, { token: otherToken, body: { name: "x" } }),
          404,
        );
        expectError(await api.delete(`/api/plugins/${plugin.id}`, { token: otherToken }), 404);
        expectError(await api.get(`/api/plugins/${plugin.id}/data`, { token: otherToken }), 404);
        assertEquals(expectStatus(await api.get("/api/plugins", { token: otherToken }), 200), []);
        expectError(await api.get("/api/plugins/not-a-uuid", { token }), 400, /id: must be a UUID/);
        const bad = [
          [{ name: "p", strategy: "polling", markup: { full: "x" } }, /polling/],
          [{ name: "p", strategy: "static", markup: { full: "" } }, /markup.full/],
          [
            { name: "p", strategy: "static", markup: { full: "x" }, refreshMinutes: 4 },
            /refreshMinutes/,
          ],
          [{ name: "p", strategy: "magic", markup: { full: "x" } }, /strategy/],
          [{
            name: "p",
            strategy: "polling",
            markup: { full: "x" },
            polling: { urls: ["https://example.com"], headers: { "X-A": "1\r\nHost: evil" } },
          }, /polling.headers/],
          [{
            name: "p",
            strategy: "polling",
            markup: { full: "x" },
            polling: { urls: Array(6).fill("https://a.b") },
          }, /at most 5/],
        ] as const;
        for (const [body, message] of bad) {
          expectError(await api.post("/api/plugins", { token, body }), 400, message);
        }
        assertEquals(
          expectStatus(await api.get("/api/plugins", { token }), 200).length,
          1,
          "nothing half-saved",
        );
      });

      const inbox = () => new URL(plugin.webhookUrl).pathname;

      await t.step("the webhook inbox: TRMNL's body, replace, deep_merge, stream", async () => {
        const post = (body: unknown) => api.post(inbox(), { body });
        expectStatus(
          await post({
            merge_variables: { temperature: 21, room: "lounge", nested: { a: 1, b: 2 } },
          }),
          200,
        );
        expectStatus(
          await post({ merge_variables: { nested: { b: 3 } }, merge_strategy: "deep_merge" }),
          200,
        );
        expectStatus(
          await post({
            merge_variables: { log: [1, 2] },
            merge_strategy: "stream",
            stream_limit: 3,
          }),
          200,
        );
        expectStatus(
          await post({
            merge_variables: { log: [3, 4] },
            merge_strategy: "stream",
            stream_limit: 3,
          }),
          200,
        );
        const held = expectStatus(await api.get(inbox()), 200);
        assertEquals(held, {
          merge_variables: {
            temperature: 21,
            room: "lounge",
            nested: { a: 1, b: 3 },
            log: [2, 3, 4],
          },
        });
        const shown = expectStatus(await api.get(`/api/plugins/${plugin.id}/data`, { token }), 200);
        assertEquals(shown.mergeVariables.log, [2, 3, 4]);
        assert.ok(shown.updatedAt);
      });

      await t.step(
        "the inbox refuses: unknown uuid, bad bodies, over 64 KiB, over the hour",
        async () => {
          expectError(
            await api.post(`/api/custom_plugins/${crypto.randomUUID()}`, {
              body: { merge_variables: {} },
            }),
            404,
          );
          expectError(
            await api.post("/api/custom_plugins/nope", { body: { merge_variables: {} } }),
            404,
          );
          expectError(
            await api.post(inbox(), {
              raw: "{not json",
              headers: { "content-type": "application/json" },
            }),
            400,
          );
          expectError(await api.post(inbox(), { body: { variables: {} } }), 400, /merge_variables/);
          expectError(
            await api.post(inbox(), { body: { merge_variables: [1] } }),
            400,
            /merge_variables/,
          );
          expectError(
            await api.post(inbox(), { body: { merge_variables: { big: "x".repeat(70_000) } } }),
            413,
          );
          // 4 posts landed above; the hour allows 6.
          expectStatus(
            await api.post(inbox(), { body: { merge_variables: { temperature: 22 } } }),
            200,
          );
          expectStatus(
            await api.post(inbox(), {
              body: { merge_variables: { temperature: 23, room: "lounge" } },
            }),
            200,
          );
          const over = await api.post(inbox(), { body: { merge_variables: { temperature: 99 } } });
          expectError(over, 429, /6 posts an hour/);
          assert.ok(Number(over.headers.get("retry-after")) > 0);
          assertEquals(
            expectStatus(await api.get(inbox()), 200).merge_variables.temperature,
            23,
            "nothing lost",
          );
        },
      );

      await t.step("concurrent stream posts all land", async () => {
        const fresh = expectStatus(
          await api.post("/api/plugins", {
            token,
            body: { name: "Feed", strategy: "webhook", markup: { full: "{{ items | size }}" } },
          }),
          201,
        );
        const path = new URL(fresh.webhookUrl).pathname;
        await Promise.all(
          [0, 1, 2, 3, 4].map((i) =>
            api.post(path, { body: { merge_variables: { items: [i] }, merge_strategy: "stream" } })
              .then((r) => expectStatus(r, 200))
          ),
        );
        const items = expectStatus(await api.get(path), 200).merge_variables.items;
        assertEquals([...items].sort(), [0, 1, 2, 3, 4]);
      });

      await t.step("preview: exactly the size and depth asked, the same bytes again", async () => {
        const path = `/api/plugins/${plugin.id}/preview`;
        const one = await bytesOf(server.url, path, token);
        assertEquals([one.status, one.type], [200, "image/png"]);
        assertEquals(pngHead(one.body), { width: 800, height: 480, depth: 1, colour: 0 });
        const again = await bytesOf(server.url, path, token);
        assertEquals(again.body, one.body);
        const big = await bytesOf(
          server.url,
          `${path}?width=1872&height=1404&bitDepth=4&view=quadrant`,
          token,
        );
        assertEquals(pngHead(big.body), { width: 1872, height: 1404, depth: 4, colour: 0 });
        expectError(await api.get(`${path}?bitDepth=3`, { token }), 400, /bitDepth/);
        expectError(await api.get(`${path}?width=4096&height=4096`, { token }), 400, /pixels/);
        expectError(await api.get(path, { token: other.accessToken }), 404);
        expectError(await api.get(path), 401);
      });

      await t.step(
        "hostile markup: a Liquid error is 400, a script that loops is 503 within the budget",
        async () => {
          const broken = expectStatus(
            await api.post("/api/plugins", {
              token,
              body: { name: "b", strategy: "static", markup: { full: "{% if %}" } },
            }),
            201,
          );
          expectError(await api.get(`/api/plugins/${broken.id}/preview`, { token }), 400, /markup/);
          const looping = expectStatus(
            await api.post("/api/plugins", {
              token,
              body: {
                name: "l",
                strategy: "static",
                markup: { full: "<script>for(;;){}</script>" },
              },
            }),
            201,
          );
          const started = Date.now();
          expectError(await api.get(`/api/plugins/${looping.id}/preview`, { token }), 503);
          assert.ok(Date.now() - started < 25_000, "answered within the 20 s budget");
          // Two of one user's previews draw at once; a third waits its turn elsewhere (429).
          const three = await Promise.all(
            [0, 1, 2].map(() =>
              fetch(`${server.url}/api/plugins/${looping.id}/preview`, {
                headers: { authorization: `Bearer ${token}` },
              }).then(async (r) => {
                await r.body?.cancel();
                return r.status;
              })
            ),
          );
          assertEquals(three.sort(), [429, 503, 503]);
          // The next render is not stalled by it.
          assertEquals(
            (await bytesOf(server.url, `/api/plugins/${plugin.id}/preview`, token)).status,
            200,
          );
        },
      );

      await t.step(
        "polling: fetched when stale, last good data kept, plugin.data_failed",
        async () => {
          const hook = expectStatus(
            await api.post("/api/webhooks", {
              token,
              body: { url: data.url("/hook"), events: ["plugin.data_failed"] },
            }),
            201,
          );
          const polling = expectStatus(
            await api.post("/api/plugins", {
              token,
              body: {
                name: "Attic",
                strategy: "polling",
                markup: { full: WEATHER },
                polling: {
                  urls: [data.url("/weather?key={{ key }}")],
                  headers: { "X-Key": "{{ key }}" },
                },
                customFields: { key: "k1" },
              },
            }),
            201,
          );
          assertEquals(
            (await bytesOf(server.url, `/api/plugins/${polling.id}/preview`, token)).status,
            200,
          );
          assert.ok(data.seen.includes("GET /weather?key=k1 k1"), data.seen.join("\n"));
          const first = expectStatus(
            await api.get(`/api/plugins/${polling.id}/data`, { token }),
            200,
          );
          assertEquals(first.mergeVariables, { temperature: 20, room: "attic" });
          // Fresh data is not fetched again within refreshMinutes.
          await bytesOf(server.url, `/api/plugins/${polling.id}/preview`, token);
          assertEquals(data.seen.filter((s) => s.startsWith("GET /weather")).length, 1);
          // A failing URL keeps the last good data and says why.
          expectStatus(
            await api.put(`/api/plugins/${polling.id}`, {
              token,
              body: { polling: { urls: [data.url("/broken")] } },
            }),
            200,
          );
          assertEquals(
            (await bytesOf(server.url, `/api/plugins/${polling.id}/preview`, token)).status,
            200,
          );
          const failed = expectStatus(await api.get(`/api/plugins/${polling.id}`, { token }), 200);
          assert.match(failed.dataError, /500/);
          assertEquals(
            expectStatus(await api.get(`/api/plugins/${polling.id}/data`, { token }), 200)
              .mergeVariables,
            { temperature: 20, room: "attic" },
          );
          await eventually(async () => {
            const page = expectStatus(
              await api.get(`/api/webhooks/${hook.id}/deliveries`, { token }),
              200,
            );
            return page.items.find((d: any) => d.type === "plugin.data_failed");
          }, "the plugin.data_failed delivery");
          // An array at the root is nested under `data`; several URLs give IDX_n.
          expectStatus(
            await api.put(`/api/plugins/${polling.id}`, {
              token,
              body: { polling: { urls: [data.url("/list"), data.url("/weather")] } },
            }),
            200,
          );
          await bytesOf(server.url, `/api/plugins/${polling.id}/preview`, token);
          const both = expectStatus(
            await api.get(`/api/plugins/${polling.id}/data`, { token }),
            200,
          );
          assertEquals(both.mergeVariables.IDX_0, [1, 2, 3]);
          assertEquals(both.mergeVariables.IDX_1.room, "attic");
          assertEquals(both.error, null);
        },
      );

      await t.step(
        "a plugin shown on a display: drawn for its panel, fetched by its poll",
        async () => {
          const display = await claimedDisplay(api, "B7");
          // The owner's plugin on another user's display: the device answers 403 (SPEC 4.5).
          expectError(
            await api.post(`/api/plugins/${plugin.id}/push`, {
              token,
              body: { deviceId: display.device.id },
            }),
            403,
          );
          const mine = expectStatus(
            await api.post("/api/plugins", {
              token: display.user.accessToken,
              body: {
                name: "Mine",
                strategy: "static",
                markup: { full: WEATHER },
                staticData: { temperature: 7, room: "hall" },
              },
            }),
            201,
          );
          const created = expectStatus(
            await api.post(`/api/plugins/${mine.id}/push`, {
              token: display.user.accessToken,
              body: { deviceId: display.device.id },
            }),
            201,
          );
          assertEquals(created.status, "PREPARE");
          await eventually(async () => {
            const page = expectStatus(
              await api.get(`/api/devices/${display.device.id}/pushes`, {
                token: display.user.accessToken,
              }),
              200,
            );
            const push = page.items.find((p: any) => p.pushId === created.pushId);
            return push && push.status !== "PREPARE" ? push : null;
          }, "the plugin's push rendered");
          const poll = expectStatus(
            await call(server.url, "GET", "/api/display", {
              headers: { ID: display.mac, "Access-Token": display.key },
            }),
            200,
          );
          const image = new Uint8Array(await (await fetch(poll.image_url)).arrayBuffer());
          assertEquals(pngHead(image), { width: 800, height: 480, depth: 1, colour: 0 });
          const preview = await bytesOf(
            server.url,
            `/api/plugins/${mine.id}/preview`,
            display.user.accessToken,
          );
          const out = Deno.env.get("PLUGIN_PNG_DIR");
          if (out) {
            await Deno.writeFile(`${out}/display.png`, image);
            await Deno.writeFile(`${out}/display-preview.png`, preview.body);
          }
          assertEquals(image, preview.body, "the display gets the preview's picture");
        },
      );

      await t.step(
        "recipes: import a trmnlp project with warnings, export imports back",
        async () => {
          const text = new TextEncoder();
          const zip = zipSync({
            "weather/src/settings.yml": text.encode(
              'name: Weather\nstrategy: static\nstatic_data: \'{"temperature": 3, "room": "roof"}\'\n' +
                "refresh_interval: 60\n",
            ),
            "weather/src/full.liquid": text.encode(WEATHER + "{{ temperature | frobnicate }}"),
            "weather/src/quadrant.liquid": text.encode("<b>{{ temperature }}</b>"),
          });
          const imported = await fetch(`${server.url}/api/plugins/import`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/zip" },
            body: zip,
          });
          const body = await imported.json();
          assertEquals(imported.status, 201, JSON.stringify(body));
          assertEquals([body.plugin.name, body.plugin.strategy, body.plugin.refreshMinutes], [
            "Weather",
            "static",
            60,
          ]);
          assert.ok(
            body.compatibility.warnings.some((w: string) => /frobnicate/.test(w)),
            body.compatibility.warnings,
          );
          const exported = await bytesOf(
            server.url,
            `/api/plugins/${body.plugin.id}/export`,
            token,
          );
          assertEquals([exported.status, exported.type], [200, "application/zip"]);
          assert.ok(
            Object.keys(unzipSync(exported.body)).some((name) => name.endsWith("settings.yml")),
          );
          const again = await fetch(`${server.url}/api/plugins/import`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/zip" },
            body: exported.body,
          });
          const back = await again.json();
          assertEquals(again.status, 201);
          assertEquals(
            [back.plugin.name, back.plugin.markup, back.plugin.staticData],
            [body.plugin.name, body.plugin.markup, body.plugin.staticData],
          );
          const notZip = await fetch(`${server.url}/api/plugins/import`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/zip" },
            body: "hello",
          });
          assertEquals(notZip.status, 400);
          await notZip.body?.cancel();
          expectError(
            await api.get(`/api/plugins/${body.plugin.id}/export`, { token: other.accessToken }),
            404,
          );
        },
      );

      await t.step(
        "examples/plugins: each imports, previews, and the room is fed by send.sh",
        async () => {
          for (const name of ["room", "weather", "todo"]) {
            const files: Record<string, Uint8Array> = {};
            const root = new URL(`../examples/plugins/${name}/`, import.meta.url);
            for (const sub of ["", "src/"]) {
              try {
                for await (const entry of Deno.readDir(new URL(sub, root))) {
                  if (entry.isFile && /\.(liquid|yml)$/.test(entry.name)) {
                    files[`${name}/${sub}${entry.name}`] = await Deno.readFile(
                      new URL(sub + entry.name, root),
                    );
                  }
                }
              } catch (error) {
                if (!(error instanceof Deno.errors.NotFound)) throw error;
              }
            }
            const reply = await fetch(`${server.url}/api/plugins/import`, {
              method: "POST",
              headers: { authorization: `Bearer ${token}`, "content-type": "application/zip" },
              body: zipSync(files),
            });
            const imported = await reply.json();
            assertEquals(reply.status, 201, JSON.stringify(imported));
            assertEquals(
              imported.compatibility.warnings,
              [],
              `${name}: ${imported.compatibility.warnings}`,
            );
            if (name === "room") {
              const send = new Deno.Command("bash", {
                args: [new URL("send.sh", root).pathname],
                env: { WEBHOOK_URL: imported.plugin.webhookUrl },
              });
              const ran = await send.output();
              assertEquals(ran.code, 0, new TextDecoder().decode(ran.stderr));
              const held = expectStatus(
                await api.get(new URL(imported.plugin.webhookUrl).pathname),
                200,
              );
              assertEquals([held.merge_variables.temperature, held.merge_variables.readings], [
                21.46,
                [21.5],
              ]);
            }
            for (const view of ["full", "quadrant"]) {
              const png = await bytesOf(
                server.url,
                `/api/plugins/${imported.plugin.id}/preview?view=${view}`,
                token,
              );
              assertEquals(png.status, 200, `${name} ${view}`);
              const out = Deno.env.get("PLUGIN_PNG_DIR");
              if (out) await Deno.writeFile(`${out}/${name}-${view}.png`, png.body);
            }
          }
        },
      );

      await t.step("delete: 204, its inbox is gone", async () => {
        expectStatus(await api.delete(`/api/plugins/${plugin.id}`, { token }), 204);
        expectError(await api.get(inbox()), 404);
        expectError(await api.get(`/api/plugins/${plugin.id}`, { token }), 404);
      });
    } finally {
      await server.close();
      await data.close();
    }
  },
});
