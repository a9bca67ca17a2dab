// deno-lint-ignore-file no-explicit-any -- tool results are untyped JSON; tests assert their shape
/**
 * Issue 24, CONTRACT.md "Integrations: MCP server and event webhooks": the MCP server through the
 * SDK's own client over both transports. Streamable HTTP at `/mcp` takes a PAT or a user access
 * token and nothing else (401 before the body is read); `deno task mcp` bridges stdio to it with
 * DDS_URL and DDS_TOKEN. Every tool acts as the credential's user: another user's device is a
 * tool result with `isError: true`, never a protocol error.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { runAdmin } from "../src/admin.ts";
import { silentLog } from "../src/infra/lib/log.ts";
import { DITHER_KERNELS } from "../src/infra/render/types.ts";
import { createMcpServer, nextAnalyzeRun, TOOL_NAMES } from "../src/domains/mcp/server.ts";
import { LinkFetcher } from "../src/infra/outbound/fetch_link.ts";
import { assert, assertEquals, expectStatus } from "./helpers/assert.ts";
import { createDevice } from "./helpers/devices.ts";
import { factoryEnv, tokenOf } from "./helpers/factory.ts";
import { type Client as Api, registerUser } from "./helpers/http.ts";
import { eventually } from "./helpers/mqtt.ts";
import type { TestServer } from "./helpers/server.ts";
import { childEnv } from "./helpers/child_env.ts";
import { serverSuite } from "./helpers/suite.ts";
import { testPng } from "./helpers/targetless.ts";

const suite = serverSuite("mcp", factoryEnv());
const ROOT = new URL("../", import.meta.url);

/** A user with a PAT and a device of their own. */
async function owner(api: Api, server: TestServer) {
  const user = await registerUser(api, "mcp");
  const pat = expectStatus(
    await api.post("/api/personal-access-tokens", {
      token: user.accessToken,
      body: { name: "assistant" },
    }),
    201,
  ).token as string;
  const device = await createDevice(server, user.user.id);
  return { user, pat, device };
}

/** The SDK's client over Streamable HTTP with a bearer. */
async function httpClient(server: TestServer, token: string) {
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", server.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

const textOf = (result: any) => result.content.find((c: any) => c.type === "text")?.text ?? "";
const jsonOf = (result: any) => {
  assert.equal(result.isError ?? false, false, textOf(result));
  return JSON.parse(textOf(result));
};
const isPng = (base64: string) => {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return bytes[0] === 0x89 && String.fromCharCode(...bytes.subarray(1, 4)) === "PNG";
};

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
};

async function postMcp(server: TestServer, token: string | null, body: BodyInit) {
  const res = await fetch(new URL("/mcp", server.url), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    body,
  });
  return { status: res.status, text: await res.text() };
}

suite.test(
  "no token, a bad token or a factory token: 401 before the body is read",
  async (_api, server) => {
    const body = JSON.stringify(INITIALIZE);
    for (const token of [null, "not-a-token", "pat_" + "x".repeat(40), tokenOf("sup")]) {
      const reply = await postMcp(server, token, body);
      assertEquals(reply.status, 401, `${token}: ${reply.text}`);
      assert.equal(JSON.parse(reply.text).error !== undefined, true, reply.text);
    }
    // Over the JSON limit without a credential: still 401, so nothing was read first.
    const huge = "x".repeat(2 * 1024 * 1024);
    assertEquals((await postMcp(server, null, huge)).status, 401);
    // No stream and no sessions (stateless): GET and DELETE are not routes at all.
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(new URL("/mcp", server.url), { method });
      await res.body?.cancel();
      assertEquals(res.status, 405, method);
    }
    // The SDK's client sees the refusal as a failed connect, not a session.
    await assert.rejects(() => httpClient(server, "not-a-token"));
  },
);

suite.test(
  "CORS: a web assistant on an allowed origin may send the MCP headers",
  async (_api, server) => {
    const res = await fetch(new URL("/mcp", server.url), {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:3000",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, mcp-protocol-version",
      },
    });
    await res.body?.cancel();
    assertEquals(res.status, 204);
    assert.match(res.headers.get("access-control-allow-headers") ?? "", /Mcp-Protocol-Version/);
  },
);

suite.test("a revoked PAT is 401 like an unknown one", async (api, server) => {
  const { user, pat } = await owner(api, server);
  assertEquals((await postMcp(server, pat, JSON.stringify(INITIALIZE))).status, 200);
  const [listed] = expectStatus(
    await api.get("/api/personal-access-tokens", { token: user.accessToken }),
    200,
  );
  expectStatus(
    await api.delete(`/api/personal-access-tokens/${listed.id}`, { token: user.accessToken }),
    204,
  );
  assertEquals((await postMcp(server, pat, JSON.stringify(INITIALIZE))).status, 401);
});

suite.test("with a PAT the body is bounded: over 1 MiB is 413", async (api, server) => {
  const { pat } = await owner(api, server);
  const reply = await postMcp(server, pat, "x".repeat(1024 * 1024 + 1));
  assertEquals(reply.status, 413, reply.text);
  // Malformed JSON is the protocol's parse error, not a 500.
  const bad = await postMcp(server, pat, "{not json");
  assert.equal(bad.status < 500, true, bad.text);
});

suite.test(
  "a batch of 11 messages is 400 before any tool runs; 10 are answered",
  async (api, server) => {
    const { user, pat, device } = await owner(api, server);
    const call = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "show_note", arguments: { deviceId: device.id, body: `note ${id}` } },
    });
    const pushesOf = async () =>
      (await server.app.services.db.selectFrom("pushes").select("id")
        .where("user_id", "=", user.user.id).execute()).length;
    const eleven = Array.from({ length: 11 }, (_, i) => call(i + 1));
    const refused = await postMcp(server, pat, JSON.stringify(eleven));
    assertEquals(refused.status, 400, refused.text);
    assert.match(JSON.parse(refused.text).error, /11 messages is over the limit of 10/);
    // Refused before any message was handled: not one of the notes became a push.
    assertEquals(await pushesOf(), 0);
    const ten = await postMcp(server, pat, JSON.stringify(eleven.slice(0, 10)));
    assertEquals(ten.status, 200, ten.text);
    const answers = JSON.parse(ten.text) as any[];
    assertEquals(answers.length, 10);
    for (const answer of answers) assertEquals(answer.result?.isError ?? false, false, ten.text);
    assertEquals(await pushesOf(), 10);
  },
);

suite.test(
  "tools/list: the snake_case tools, each with an input JSON Schema",
  async (api, server) => {
    const { pat } = await owner(api, server);
    const client = await httpClient(server, pat);
    try {
      const { tools } = await client.listTools();
      assertEquals(tools.map((t: any) => t.name), [...TOOL_NAMES]);
      for (const t of tools as any[]) {
        assert.match(t.name, /^[a-z]+(_[a-z]+)+$/);
        assertEquals(t.inputSchema.type, "object");
      }
      const byName = Object.fromEntries(tools.map((t: any) => [t.name, t]));
      // From the API's own zod schemas: the custom push's dither kernels, the raw item's text.
      assert.deepEqual(
        (byName.push_image_url.inputSchema.properties as any).dither.enum,
        [...DITHER_KERNELS],
      );
      assert.equal((byName.add_note.inputSchema.required as string[]).includes("text"), true);
      assert.equal((byName.get_content.inputSchema.required as string[]).includes("id"), true);
    } finally {
      await client.close();
    }
  },
);

suite.test(
  "list_devices and the devices resource show the caller's devices only",
  async (api, server) => {
    const alice = await owner(api, server);
    const bob = await owner(api, server);
    const client = await httpClient(server, alice.pat);
    try {
      const devices = jsonOf(await client.callTool({ name: "list_devices", arguments: {} }));
      assertEquals(devices.map((d: any) => d.id), [alice.device.id]);
      assertEquals(typeof devices[0].online, "boolean");
      const resource = await client.readResource({ uri: "dds://devices" });
      const listed = JSON.parse((resource.contents[0] as any).text);
      assertEquals(listed.map((d: any) => d.id), [alice.device.id]);
      assert.equal(JSON.stringify(listed).includes(bob.device.id), false);
      const { resources } = await client.listResources();
      assertEquals(resources.map((r: any) => r.uri).sort(), ["dds://devices", "dds://templates"]);
    } finally {
      await client.close();
    }
  },
);

suite.test("a user access token works too", async (api, server) => {
  const { user, device } = await owner(api, server);
  const client = await httpClient(server, user.accessToken);
  try {
    const devices = jsonOf(await client.callTool({ name: "list_devices", arguments: {} }));
    assertEquals(devices.map((d: any) => d.id), [device.id]);
  } finally {
    await client.close();
  }
});

suite.test(
  "templates: list_templates, and preview_template answers a PNG image",
  async (api, server) => {
    const { pat } = await owner(api, server);
    const client = await httpClient(server, pat);
    try {
      const templates = jsonOf(await client.callTool({ name: "list_templates", arguments: {} }));
      assert.equal(templates.some((t: any) => t.name === "note"), true);
      const preview: any = await client.callTool({
        name: "preview_template",
        arguments: { name: "note", variables: { title: "Hi", body: "From the assistant" } },
      });
      const image = preview.content.find((c: any) => c.type === "image");
      assertEquals(image.mimeType, "image/png");
      assert.equal(isPng(image.data), true);
      // An unknown template and variables off the schema: tool errors naming the problem.
      const unknown: any = await client.callTool({
        name: "preview_template",
        arguments: { name: "no-such", variables: {} },
      });
      assertEquals(unknown.isError, true);
      const bad: any = await client.callTool({
        name: "preview_template",
        arguments: { name: "note", variables: { title: "no body" } },
      });
      assertEquals(bad.isError, true);
      assert.match(textOf(bad), /^400: /);
    } finally {
      await client.close();
    }
  },
);

suite.test(
  "show_note pushes to the caller's device; get_push reads its state",
  async (api, server) => {
    const { pat, device } = await owner(api, server);
    const client = await httpClient(server, pat);
    try {
      const pushed = jsonOf(
        await client.callTool({
          name: "show_note",
          arguments: { deviceId: device.id, title: "Milk", body: "Buy milk on the way home" },
        }),
      );
      assertEquals(pushed.deviceId, device.id);
      assertEquals(pushed.status, "PREPARE");
      const rendered = await eventually(async () => {
        const state = jsonOf(
          await client.callTool({
            name: "get_push",
            arguments: { deviceId: device.id, pushId: pushed.pushId },
          }),
        );
        return state.status !== "PREPARE" ? state : null;
      }, "the note's push rendered");
      assertEquals(rendered.pushId, pushed.pushId);
      assertEquals(rendered.title, "Milk");
      const row = await server.app.services.db.selectFrom("pushes").selectAll()
        .where("id", "=", pushed.pushId).executeTakeFirstOrThrow();
      assertEquals(row.template, "note");
      assertEquals((row.params as any).body, "Buy milk on the way home");
      // push_template takes any template with its variables.
      const generic = jsonOf(
        await client.callTool({
          name: "push_template",
          arguments: { deviceId: device.id, template: "note", variables: { body: "Generic" } },
        }),
      );
      assertEquals(generic.status, "PREPARE");
    } finally {
      await client.close();
    }
  },
);

suite.test("another user's device is a tool error, never a protocol error", async (api, server) => {
  const alice = await owner(api, server);
  const bob = await owner(api, server);
  const client = await httpClient(server, alice.pat);
  try {
    const calls: Array<[string, Record<string, unknown>]> = [
      ["show_note", { deviceId: bob.device.id, body: "Hello Bob" }],
      ["push_template", { deviceId: bob.device.id, template: "note", variables: { body: "x" } }],
      ["push_image_url", { deviceId: bob.device.id, url: "https://example.com/a.png" }],
      ["get_push", { deviceId: bob.device.id, pushId: crypto.randomUUID() }],
    ];
    for (const [name, args] of calls) {
      const result: any = await client.callTool({ name, arguments: args });
      assertEquals(result.isError, true, `${name}: ${JSON.stringify(result)}`);
      assert.match(textOf(result), /^403: /, name);
    }
    // Unknown ids are 404; a malformed one is the SDK's input validation, also a tool result.
    const unknown: any = await client.callTool({
      name: "get_push",
      arguments: { deviceId: alice.device.id, pushId: crypto.randomUUID() },
    });
    assertEquals(unknown.isError, true);
    assert.match(textOf(unknown), /^404: /);
    const malformed: any = await client.callTool({
      name: "show_note",
      arguments: { deviceId: "not-a-uuid", body: "x" },
    });
    assertEquals(malformed.isError, true);
    // Bob's device got nothing.
    const pushes = await server.app.services.db.selectFrom("pushes").select("id")
      .where("device_id", "=", bob.device.id).execute();
    assertEquals(pushes.length, 0);
    // The session still works after the refusals.
    jsonOf(await client.callTool({ name: "list_devices", arguments: {} }));
  } finally {
    await client.close();
  }
});

suite.test(
  "push_image_url uses the link assets' guard: loopback and private URLs are refused",
  async (api, server) => {
    const { pat, device } = await owner(api, server);
    const client = await httpClient(server, pat);
    try {
      for (
        const url of [
          `${server.url}/health`,
          "http://10.0.0.1/a.png",
          "file:///etc/passwd",
          "http://user:pw@example.com/a.png",
        ]
      ) {
        const result: any = await client.callTool({
          name: "push_image_url",
          arguments: { deviceId: device.id, url },
        });
        assertEquals(result.isError, true, url);
        assert.match(textOf(result), /^link_refused: /, url);
      }
    } finally {
      await client.close();
    }
  },
);

suite.test(
  "push_image_url pushes a fetched PNG as a custom push (fetcher widened to loopback)",
  async (api, server) => {
    const { user, device } = await owner(api, server);
    const png = testPng(120, 80);
    const site = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen: () => {} },
      (req) =>
        new URL(req.url).pathname === "/photo.png"
          ? new Response(png.slice(), { headers: { "content-type": "image/png" } })
          : new Response("<html></html>", { headers: { "content-type": "text/html" } }),
    );
    // The route's fetcher allows public addresses only; the same class, widened, in process.
    const mcp = createMcpServer({
      services: server.app.services,
      links: new LinkFetcher({
        allowAddress: (address) => address === "127.0.0.1",
      }),
      log: silentLog,
    }, user.user.id);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new Client({ name: "mcp-test", version: "1.0.0" });
    await client.connect(clientSide);
    try {
      const base = `http://127.0.0.1:${site.addr.port}`;
      const pushed = jsonOf(
        await client.callTool({
          name: "push_image_url",
          arguments: { deviceId: device.id, url: `${base}/photo.png`, title: "Photo" },
        }),
      );
      const row = await server.app.services.db.selectFrom("pushes").selectAll()
        .where("id", "=", pushed.pushId).executeTakeFirstOrThrow();
      assertEquals(row.device_id, device.id);
      assertEquals(row.title, "Photo");
      // A page that is not an image is refused before anything is stored.
      const page: any = await client.callTool({
        name: "push_image_url",
        arguments: { deviceId: device.id, url: `${base}/page` },
      });
      assertEquals(page.isError, true);
      assert.match(textOf(page), /not an image/);
    } finally {
      await client.close();
      await mcp.close();
      await site.shutdown();
    }
  },
);

Deno.test("nextAnalyzeRun names the next hourly run, or the schedule", () => {
  const at = new Date("2026-11-27T20:07:30Z");
  assert.match(nextAnalyzeRun("0 * * * *", at), /, 21:00 UTC/);
  assert.match(nextAnalyzeRun("15 * * * *", at), /, 20:15 UTC/);
  assert.match(nextAnalyzeRun("7 * * * *", at), /, 21:07 UTC/);
  assertEquals(nextAnalyzeRun("0 6 * * 1", at), 'at the next run of ANALYZE_SCHEDULE "0 6 * * 1"');
});

suite.test("add_note puts a note through the content pipeline", async (api, server) => {
  const { pat, user } = await owner(api, server);
  const client = await httpClient(server, pat);
  try {
    const item = jsonOf(
      await client.callTool({
        name: "add_note",
        arguments: { title: "Dentist", text: "Dentist on Tuesday at 9" },
      }),
    );
    // Confirmed: on its way to the summary stage (or past it already).
    assert.notEqual(item.status, "uploading");
    const reply = expectStatus(
      await api.get(`/api/raw-items/${item.id}`, { token: user.accessToken }),
      200,
    );
    assertEquals(reply.title, "Dentist");
    // It says when it will show (issue 34): the default schedule is hourly, at minute 0.
    assert.match(
      item.shows,
      /at the next scheduled analyze run, \d\d:00 UTC \(ANALYZE_SCHEDULE "0 \* \* \* \*"\)/,
    );
    assertEquals(
      expectStatus(await api.get("/api/analyze/runs", { token: user.accessToken }), 200).items,
      [],
    );
    // analyzeNow: once summarised, a MANUAL run is queued at once.
    const now = jsonOf(
      await client.callTool({
        name: "add_note",
        arguments: { text: "Bins out on Thursday", analyzeNow: true },
      }),
    );
    assert.match(now.shows, /^An analyze run is (queued now|already queued or running)/);
    const runs = expectStatus(
      await api.get("/api/analyze/runs", { token: user.accessToken }),
      200,
    ).items;
    assertEquals(runs.map((r: any) => r.reason), ["MANUAL"]);
    const blank: any = await client.callTool({ name: "add_note", arguments: { text: "  " } });
    assertEquals(blank.isError, true);
    assert.match(textOf(blank), /^400: /);
  } finally {
    await client.close();
  }
});

suite.test(
  "create_content: 403 on the free plan; with pro its PNG comes back",
  async (api, server) => {
    const { pat, user } = await owner(api, server);
    const client = await httpClient(server, pat);
    try {
      const args = { title: "Tea", assets: [{ type: "text", text: "Green tea, 80 degrees" }] };
      const free: any = await client.callTool({ name: "create_content", arguments: args });
      assertEquals(free.isError, true);
      assert.match(textOf(free), /^403: /);
      await runAdmin(server.app.services.db, ["set-plan", user.user.email, "pro"]);
      const created: any = await client.callTool({ name: "create_content", arguments: args });
      const content = jsonOf(created);
      assertEquals(content.mode, "auto");
      // It waits for the picture; should it still be processing, get_content hands it over later.
      const done: any = await eventually(async () => {
        const result: any = await client.callTool({
          name: "get_content",
          arguments: { id: content.id },
        });
        const state = jsonOf(result).state;
        if (state === "failed") throw new Error(textOf(result));
        return result.content.some((c: any) => c.type === "image") ? result : null;
      }, "the content's PNG");
      const image = done.content.find((c: any) => c.type === "image");
      assert.equal(isPng(image.data), true);
      // Another user's content is a 404 tool result.
      const other = await owner(api, server);
      const stranger = await httpClient(server, other.pat);
      try {
        const refused: any = await stranger.callTool({
          name: "get_content",
          arguments: { id: content.id },
        });
        assertEquals(refused.isError, true);
        assert.match(textOf(refused), /^404: /);
      } finally {
        await stranger.close();
      }
    } finally {
      await client.close();
    }
  },
);

/**
 * The SDK's client over stdio: `deno task mcp` with DDS_URL and DDS_TOKEN, started as
 * docs/integrations.md configures a desktop assistant (`--cwd` the checkout, from elsewhere).
 */
function stdioClient(server: TestServer, token: string) {
  return new StdioClientTransport({
    command: Deno.execPath(),
    args: ["task", "--quiet", "--cwd", ROOT.pathname, "mcp"],
    cwd: Deno.env.get("TMPDIR") ?? "/tmp",
    env: childEnv({ DDS_URL: server.url, DDS_TOKEN: token }),
    stderr: "pipe",
  });
}

suite.test(
  "stdio: deno task mcp bridges to the service with DDS_URL and DDS_TOKEN",
  async (api, server) => {
    const alice = await owner(api, server);
    const bob = await owner(api, server);
    const client = new Client({ name: "mcp-test", version: "1.0.0" });
    await client.connect(stdioClient(server, alice.pat));
    try {
      const { tools } = await client.listTools();
      assertEquals(tools.map((t: any) => t.name), [...TOOL_NAMES]);
      const devices = jsonOf(await client.callTool({ name: "list_devices", arguments: {} }));
      assertEquals(devices.map((d: any) => d.id), [alice.device.id]);
      const refused: any = await client.callTool({
        name: "show_note",
        arguments: { deviceId: bob.device.id, body: "Hello Bob" },
      });
      assertEquals(refused.isError, true);
      assert.match(textOf(refused), /^403: /);
    } finally {
      await client.close();
    }
  },
);

suite.test(
  "stdio: a bad token is refused at connect, naming DDS_TOKEN, not a crash",
  async (_api, server) => {
    const client = new Client({ name: "mcp-test", version: "1.0.0" });
    const error = await client.connect(stdioClient(server, "pat_" + "y".repeat(40))).then(
      () => null,
      (e: Error) => e,
    );
    assert.ok(error, "connected with a bad token");
    assert.match(error.message, /DDS_TOKEN was refused by http:\/\/127\.0\.0\.1:\d+ \(401\)/);
    await client.close();
  },
);

suite.test("stdio: without DDS_TOKEN it ends at once with one line naming it", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "--cwd", ROOT.pathname, "mcp"],
    env: childEnv({ DDS_URL: "http://127.0.0.1:9" }),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 1);
  const lines = new TextDecoder().decode(out.stderr).trim().split("\n");
  assertEquals(lines.length, 1, lines.join("\n"));
  assert.match(lines[0], /^mcp: DDS_TOKEN is not set/);
  assertEquals(out.stdout.length, 0);
});

suite.test(
  "plugins: list_plugins and post_plugin_data act as the caller; another user's plugin is 404",
  async (api, server) => {
    const alice = await owner(api, server);
    const bob = await owner(api, server);
    const plugin = expectStatus(
      await api.post("/api/plugins", {
        token: alice.pat,
        body: { name: "Feed", strategy: "webhook", markup: { full: "{{ n }}" } },
      }),
      201,
    );
    const client = await httpClient(server, alice.pat);
    const theirs = await httpClient(server, bob.pat);
    try {
      const listed = jsonOf(await client.callTool({ name: "list_plugins", arguments: {} }));
      assertEquals(listed.map((p: any) => [p.id, p.webhookUrl]), [[plugin.id, plugin.webhookUrl]]);
      const posted = jsonOf(
        await client.callTool({
          name: "post_plugin_data",
          arguments: { pluginId: plugin.id, mergeVariables: { n: [1] }, mergeStrategy: "stream" },
        }),
      );
      assertEquals(posted.mergeVariables, { n: [1] });
      const held = expectStatus(await api.get(new URL(plugin.webhookUrl).pathname), 200);
      assertEquals(held.merge_variables, { n: [1] });
      assertEquals(jsonOf(await theirs.callTool({ name: "list_plugins", arguments: {} })), []);
      const refused: any = await theirs.callTool({
        name: "post_plugin_data",
        arguments: { pluginId: plugin.id, mergeVariables: { n: 2 } },
      });
      assertEquals(refused.isError, true);
      assert.match(refused.content[0].text, /^404: Plugin not found/);
    } finally {
      await client.close();
      await theirs.close();
    }
  },
);

suite.end();
