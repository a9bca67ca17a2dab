/** `deno task start` as a process: banner, persistence across restarts, clean SIGTERM, bad config. */
import { assert, expectStatus } from "./helpers/assert.ts";
import { client } from "./helpers/http.ts";
import { externalDatabaseUrl } from "./helpers/server.ts";
import { childEnv, ownLines } from "./helpers/child_env.ts";
import { freePort } from "./helpers/ports.ts";

const MAIN = new URL("../src/main.ts", import.meta.url).pathname;

/** Starts the service as `deno task start` would, on free ports, with an embedded database. */
async function spawn(env: Record<string, string>) {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN],
    env: childEnv({
      PORT: String(port),
      MQTT_PORT: String(freePort()),
      HOST: "127.0.0.1",
      LOG_LEVEL: "silent",
      ...env,
    }),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      const res = await fetch(`${url}/ready`);
      await res.body?.cancel();
      if (res.ok) break;
    } catch { /* starting */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      const [status, out] = await Promise.all([child.status, new Response(child.stdout).text()]);
      await child.stderr.cancel();
      return { code: status.code, out };
    },
  };
}

Deno.test({
  name: "startup: the embedded database persists across restarts and SIGTERM exits cleanly",
  ignore: externalDatabaseUrl !== undefined, // the embedded default is what this proves
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "dds-start-" });
    try {
      const first = await spawn({ DATA_DIR: dataDir });
      const reg = expectStatus(
        await client(first.url).post("/auth/register", {
          body: { email: "keep@example.com", username: "keeper", password: "password123" },
        }),
        201,
      );
      // A second process on the same embedded database stops at once with one line.
      const second = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN],
        env: childEnv({ DATA_DIR: dataDir, PORT: "0", MQTT_PORT: "0", HOST: "127.0.0.1" }),
        clearEnv: true,
        stdout: "null",
        stderr: "piped",
      }).output();
      assert.equal(second.code, 1);
      const lines = ownLines(new TextDecoder().decode(second.stderr));
      assert.equal(lines.length, 1, lines.join("\n"));
      assert.match(lines[0], /^The embedded database in .* is in use by process \d+/);

      const stopped = await first.stop();
      assert.equal(stopped.code, 0);
      assert.match(stopped.out, /listening/);
      assert.match(stopped.out, /PGlite/);
      assert.match(stopped.out, /JWT_SECRET: generated/);
      assert.match(stopped.out, /Shutting down/);

      const restarted = await spawn({ DATA_DIR: dataDir });
      const api = client(restarted.url);
      expectStatus(
        await api.post("/auth/login", { body: { identifier: "keeper", password: "password123" } }),
        200,
      );
      // The generated JWT secret was kept too: the old access token still works.
      expectStatus(await api.get("/auth/me", { token: reg.accessToken }), 200);
      assert.equal((await restarted.stop()).code, 0);
    } finally {
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});

/** Starts `src/main.ts` expecting a refusal: exit 1 and one line on stderr, which it returns. */
async function refusal(args: string[], env: Record<string, string>): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env: childEnv(env),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 1);
  const lines = ownLines(new TextDecoder().decode(out.stderr));
  assert.equal(lines.length, 1, lines.join("\n"));
  return lines[0];
}

Deno.test("startup: a bad variable stops start-up with one line naming it", async () => {
  assert.match(await refusal([], { PORT: "not-a-port" }), /^Invalid PORT: /);
});

Deno.test("startup: --role api on the embedded defaults refuses with one line", async () => {
  for (const args of [["--role", "api"], ["--role=worker"]]) {
    assert.match(
      await refusal(args, { PORT: "0" }),
      /^Role (api|worker) needs DATABASE_URL and MQTT_URL: .*--role all/,
    );
  }
});
