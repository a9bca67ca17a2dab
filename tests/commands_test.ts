/**
 * Every `deno task` command README.md and docs/*.md show runs as shown (issue 27): the task
 * exists, and each is run here as a person types it, as a subprocess: with `--help`, with the
 * documented arguments against nothing (a closed port, an empty DATA_DIR) where that ends in one
 * clear line, and `deno task start` until `/ready`. The tests used to call the tools' functions
 * directly, so `device-sim --nfc` and `admin set-plan` broke on their arguments unnoticed.
 * Also the refusals a newcomer meets first: MQTT_PORT taken (one line, before anything slow opens)
 * and a split role without a shared object store.
 */
import { assert, assertEquals } from "./helpers/assert.ts";
import { childEnv, ownLines } from "./helpers/child_env.ts";
import { freePort } from "./helpers/ports.ts";

const ROOT = new URL("../", import.meta.url);
const TASKS: Record<string, string> = JSON.parse(
  await Deno.readTextFile(new URL("deno.json", ROOT)),
).tasks;

/** The documents whose commands a newcomer copies. */
async function documents(): Promise<string[]> {
  const files = ["README.md"];
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (entry.isFile && entry.name.endsWith(".md")) files.push(`docs/${entry.name}`);
  }
  return files.sort();
}

interface Shown {
  file: string;
  task: string;
  /** What follows the task name up to the end of the code span or line. */
  args: string;
}

/** Every `deno task <name> ...` (and `npx -y deno@2 task <name>`) in the documents. */
async function shownCommands(): Promise<Shown[]> {
  const shown: Shown[] = [];
  for (const file of await documents()) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    // `deno task --quiet start`: deno task's own flags come before the task's name.
    for (const m of text.matchAll(/\bdeno(?:@2)? task (?:--?[a-z]+ )*([a-z][\w:-]*)([^`\n]*)/g)) {
      shown.push({ file, task: m[1], args: m[2].trim() });
    }
  }
  return shown;
}

/**
 * How each documented task is exercised here; a task the documents show that is not listed fails
 * the first test, so a new command cannot be documented without being run.
 */
const NOT_RUN_HERE: Record<string, string> = {
  test: "the suite itself",
  check: "fmt, lint and types: CI's first step (.ci/run)",
  client: "runs openapi-typescript from npm (CI's check)",
  "openapi:lint": "runs Redocly from npm (CI's check)",
  "goldens:update": "rewrites the golden images (the render tests run the same code)",
  "test:browser": "Playwright in Chromium (CI's browser step)",
};
const HELP_ONLY = [
  "start",
  "admin",
  "device-sim",
  "factory",
  "migrate",
  "openapi",
  "template:preview",
  "scene:render",
  "mcp", // its stdio session against a server: tests/mcp_test.ts
  "bench", // never run here: minutes of every core
  "bench:http",
  "bench:paper", // needs tesseract
  "bench:html", // minutes of Chromium
  "html:screen", // src/infra/html/screens_test.ts draws through the same code
];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** stderr without deno task's `Task <name> <command>` line and Deno's download progress. */
  problems: string[];
  ms: number;
}

/**
 * A newcomer's environment: nothing of this process's configuration (a suite run against the real
 * PostgreSQL and Mosquitto sets DATABASE_URL and MQTT_URL), only what Deno itself needs.
 */
const cleanEnv = childEnv;

/** `deno task <task> ...args` in the repository, as typed, in a clean environment plus `env`. */
async function task(name: string, args: string[], env: Record<string, string> = {}) {
  const started = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", name, ...args],
    cwd: ROOT,
    env: cleanEnv(env),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return result(out, started);
}

function result(out: Deno.CommandOutput, started: number): Run {
  const stderr = new TextDecoder().decode(out.stderr);
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr,
    problems: ownLines(stderr),
    ms: performance.now() - started,
  };
}

/** A refusal: exit 1 and exactly one line of its own on stderr (no stack trace). */
function oneLine(run: Run, pattern: RegExp): string {
  assertEquals(run.code, 1, `exit ${run.code}: ${run.stderr}`);
  assertEquals(run.problems.length, 1, run.stderr);
  assert.match(run.problems[0], pattern);
  return run.problems[0];
}

async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "dds-commands-" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** A TCP port that refuses connections: bound for a moment, then released. */
const closedPort = freePort;

Deno.test("commands: every deno task the README and docs show exists, and each is run here", async () => {
  const shown = await shownCommands();
  assert(shown.length > 20, `only ${shown.length} commands found`);
  const documented = new Set(shown.map((s) => s.task));
  for (const s of shown) {
    assert(s.task in TASKS, `${s.file}: deno task ${s.task} is not a task of deno.json`);
  }
  for (const name of documented) {
    assert(
      HELP_ONLY.includes(name) || name in NOT_RUN_HERE,
      `deno task ${name} is documented but not run by tests/commands_test.ts`,
    );
  }
  // The commands whose documented arguments the tests below run as shown.
  const argsOf = (name: string) => shown.filter((s) => s.task === name).map((s) => s.args);
  assert(argsOf("admin").includes("set-plan alice@example.com pro"), String(argsOf("admin")));
  assert(argsOf("device-sim").some((a) => a.startsWith("--nfc <serial>.nfc.json --mqtt")));
  assert(argsOf("device-sim").includes("--trmnl --api http://127.0.0.1:8080 --every 5"));
  assert(argsOf("factory").some((a) => a.startsWith("--token station-one-secret-token")));
});

Deno.test("commands: every task a person runs answers --help with its usage, exit 0", async () => {
  for (const name of HELP_ONLY) {
    const run = await task(name, ["--help"]);
    assertEquals(run.code, 0, `deno task ${name} --help: exit ${run.code}\n${run.stderr}`);
    assert.match(run.stdout, new RegExp(`^usage: deno task ${name}\\b`, "im"), run.stdout);
    assertEquals(run.problems, [], `deno task ${name} --help printed ${run.stderr}`);
  }
});

Deno.test("commands: device-sim takes its documented arguments (not the service's --role)", async () => {
  await withTempDir(async (dir) => {
    const nfc = `${dir}/SN-1.nfc.json`;
    await Deno.writeTextFile(
      nfc,
      JSON.stringify({
        thingName: "dds-sim-thing",
        mqttPassword: "not-a-real-password",
        nfcPayload: "dds://bind?v=1&kid=k1&hw=hw&cv=1&p=proof",
      }),
    );
    const port = closedPort();
    // As docs/devices.md shows it; nothing listens, so it ends with one line naming the broker.
    const shown = await task("device-sim", [
      "--nfc",
      nfc,
      "--mqtt",
      `mqtt://127.0.0.1:${port}`,
      "--format",
      "raw2",
    ], { DATA_DIR: dir });
    oneLine(shown, new RegExp(`^device-sim: .*ECONNREFUSED 127\\.0\\.0\\.1:${port}`));
    // --thing/--password and --bind-token (README) are arguments it knows too.
    const bind = await task("device-sim", [
      "--nfc",
      nfc,
      "--bind-token",
      "some-token",
      "--api",
      `http://127.0.0.1:${closedPort()}`,
    ], { DATA_DIR: dir });
    oneLine(bind, /^device-sim: /);
    assert(!/Unknown argument/.test(bind.stderr), bind.stderr);
    // --trmnl (docs/displays.md), its --api closed: one line naming the service it could not reach.
    const trmnlPort = closedPort();
    const trmnl = await task("device-sim", [
      "--trmnl",
      "--api",
      `http://127.0.0.1:${trmnlPort}`,
      "--every",
      "5",
    ], { DATA_DIR: dir });
    oneLine(trmnl, new RegExp(`^device-sim: .*127\\.0\\.0\\.1:${trmnlPort}`));
    // Without a thing name: the usage, exit 2.
    const none = await task("device-sim", ["--once"], { DATA_DIR: dir });
    assertEquals(none.code, 2);
    assert.match(none.stderr, /A thing name is required/);
  });
});

Deno.test("commands: admin set-plan runs as docs/billing.md shows it", async () => {
  await withTempDir(async (dir) => {
    // A fresh embedded database: the command parses, migrates, and finds no such user.
    const run = await task("admin", ["set-plan", "alice@example.com", "pro"], { DATA_DIR: dir });
    oneLine(run, /^No user with email or username alice@example\.com$/);
    const misuse = await task("admin", ["set-plan", "alice", "gold"], { DATA_DIR: dir });
    oneLine(misuse, /^Usage: deno task admin set-plan/);
  });
});

Deno.test("commands: the factory station says in one line what is missing", async () => {
  const url = `http://127.0.0.1:${closedPort()}`;
  const shown = await task("factory", [
    "--token",
    "station-one-secret-token",
    "--order",
    "PO-2026-001",
    "--url",
    url,
  ]);
  oneLine(shown, new RegExp(`^No service at ${url.replaceAll(".", "\\.")} .*deno task start`));
  const noToken = await task("factory", []);
  assertEquals(noToken.code, 2);
  assert.match(noToken.stderr, /A --token is required/);
});

Deno.test("commands: deno task --quiet start is ready, prints nothing on stderr, and the factory without a principal is one line", async () => {
  await withTempDir(async (dir) => {
    const port = freePort();
    const url = `http://127.0.0.1:${port}`;
    // As the Quick start shows it.
    const child = new Deno.Command(Deno.execPath(), {
      args: ["task", "--quiet", "start"],
      cwd: ROOT,
      env: cleanEnv({
        PORT: String(port),
        MQTT_PORT: "0",
        HOST: "127.0.0.1",
        DATA_DIR: dir,
        LOG_LEVEL: "silent",
      }),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stdout = new Response(child.stdout).text();
    const stderr = new Response(child.stderr).text();
    try {
      let ready = false;
      for (let i = 0; i < 600 && !ready; i++) {
        try {
          const res = await fetch(`${url}/ready`);
          await res.body?.cancel();
          ready = res.ok;
        } catch { /* starting */ }
        if (!ready) await new Promise((r) => setTimeout(r, 100));
      }
      assert(ready, "deno task start did not become ready in 60 s");
      // A tRPC query (GET) and a REST call: Deno warned about `request.signal` after the first.
      for (const path of ["/trpc/accounts.getMe", "/api/devices", "/health"]) {
        const res = await fetch(`${url}${path}`);
        await res.body?.cancel();
      }
      // README's factory line without FACTORY_PRINCIPALS: the console refuses, the station says
      // what to set.
      const factory = await task("factory", [
        "--token",
        "station-one-secret-token",
        "--url",
        url,
      ]);
      oneLine(factory, /refused the token \(401\): .*FACTORY_PRINCIPALS='\[/);
    } finally {
      child.kill("SIGTERM");
      await child.status;
    }
    const out = await stdout;
    const err = await stderr;
    assert.match(out, /^Starting: /m);
    assert.match(out, /Device Display Service listening/);
    // No download lines, no runtime warnings: nothing on stderr.
    assertEquals(err.trim(), "");
  });
});

Deno.test("commands: MQTT_PORT taken stops start-up with one line before anything slow opens", async () => {
  const held = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const taken = (held.addr as Deno.NetAddr).port;
  // A local Mosquitto on the default port is the case a newcomer meets; a port this test holds
  // proves the same where none runs.
  const mosquitto = await Deno.connect({ hostname: "127.0.0.1", port: 1883 }).then(
    (c) => (c.close(), true),
    () => false,
  );
  try {
    for (const mqttPort of [String(taken), ...(mosquitto ? [undefined] : [])]) {
      await withTempDir(async (dir) => {
        const run = await task("start", [], {
          PORT: "0",
          HOST: "127.0.0.1",
          DATA_DIR: dir,
          ...(mqttPort ? { MQTT_PORT: mqttPort } : {}),
        });
        const port = mqttPort ?? "1883";
        const line = oneLine(run, new RegExp(`^MQTT_PORT ${port} is already in use`));
        assert.match(line, new RegExp(`MQTT_URL=mqtt://127\\.0\\.0\\.1:${port}`));
        // Nothing slow started: no database, no generated secrets (it took 11-24 s before).
        assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), []);
        assert(run.ms < 10_000, `the refusal took ${Math.round(run.ms)} ms`);
      });
    }
  } finally {
    held.close();
  }
});

Deno.test("commands: PORT or FACTORY_PORT taken stops start-up with one line, not a stack trace", async () => {
  const held = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const taken = String((held.addr as Deno.NetAddr).port);
  try {
    for (const variable of ["PORT", "FACTORY_PORT"]) {
      await withTempDir(async (dir) => {
        const run = await task("start", [], {
          PORT: "0",
          MQTT_PORT: "0",
          HOST: "127.0.0.1",
          DATA_DIR: dir,
          [variable]: taken,
        });
        const line = oneLine(run, new RegExp(`^${variable} ${taken} is already in use`));
        assert.match(line, new RegExp(`choose a free ${variable}`));
        // Nothing slow started: no database, no generated secrets.
        assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), []);
      });
    }
  } finally {
    held.close();
  }
});

Deno.test("commands: a split role with the disk store refuses in one line unless DATA_DIR is shared", async () => {
  await withTempDir(async (dir) => {
    // Unreachable on purpose: the refusal comes from the configuration, before any connection.
    const external = {
      DATABASE_URL: `postgres://postgres@127.0.0.1:${closedPort()}/none`,
      MQTT_URL: `mqtt://127.0.0.1:${closedPort()}`,
      PORT: "0",
      DATA_DIR: dir,
    };
    for (const role of ["api", "worker"]) {
      const run = await task("start", ["--role", role], external);
      oneLine(run, new RegExp(`^Role ${role} needs S3_BUCKET or DATA_DIR_SHARED=1: `));
    }
    // Refused before anything opened (S3_BUCKET and DATA_DIR_SHARED=1 pass: src/config_test.ts).
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), []);
  });
});
