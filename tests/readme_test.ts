/**
 * Issue 27: README's "Calling the API" block is run as a newcomer would paste it, with bash, curl
 * and jq against a started server with a fresh database (only `B=` points elsewhere). A `curl`
 * shim on PATH logs every request's status, so each step is checked, not just the exit code.
 */
import { assert, assertEquals } from "./helpers/assert.ts";
import { startTestServer } from "./helpers/server.ts";
import { COMMITTED } from "../src/openapi.ts";
import { runShell, shellBlocks, type Step, which } from "./helpers/doc_blocks.ts";

const ROOT = new URL("../", import.meta.url);
const README = new URL("README.md", ROOT);

/** Runs a block with bash in `dir`; returns the requests curl made, in order, and its output. */
async function runBlock(block: string, baseUrl: string, dir: string) {
  const lines = block.split("\n");
  const b = lines.findIndex((line) => /^B=http:\/\/localhost:8080$/.test(line));
  assert.ok(b >= 0, "the block starts by setting B=http://localhost:8080");
  lines[b] = `B=${baseUrl}`;
  // mktemp -d makes its folder here, so the run leaves nothing behind.
  await Deno.mkdir(`${dir}/tmp`, { recursive: true });
  return await runShell(lines.join("\n"), dir, { TMPDIR: `${dir}/tmp` });
}

/** Width and height from a PNG's IHDR. */
function pngSize(bytes: Uint8Array): [number, number] {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  assert.deepEqual([...bytes.slice(0, 8)], signature, "not a PNG");
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  return [view.getUint32(16), view.getUint32(20)];
}

const UUID = "[0-9a-f-]{36}";

/** What each step must answer, in order (polls may repeat their step). */
const EXPECTED: [string, RegExp, number][] = [
  ["POST", /^\/auth\/register$/, 201],
  ["GET", /^\/auth\/me$/, 200],
  ["GET", /^\/auth\/sessions$/, 200],
  ["POST", /^\/auth\/login$/, 200],
  ["POST", /^\/auth\/refresh$/, 200],
  ["POST", /^\/api\/personal-access-tokens$/, 201],
  ["GET", /^\/api\/sdk\/v1\/me$/, 200],
  ["POST", /^\/api\/sdk\/v1\/contents$/, 201],
  ["POST", /^\/storage\/upload$/, 204],
  ["POST", new RegExp(`^/api/sdk/v1/contents/${UUID}/confirm$`), 202],
  ["GET", new RegExp(`^/api/sdk/v1/contents/${UUID}$`), 200],
  ["GET", new RegExp(`^/api/sdk/v1/presentations/${UUID}$`), 200],
  ["GET", /^\/storage\/objects\//, 200],
  ["DELETE", /^\/auth\/account$/, 204],
];

function checkSteps(steps: Step[]) {
  const seen = steps.map((s) => `${s.status} ${s.method} ${s.path}`).join("\n");
  let i = 0;
  for (const [method, path, status] of EXPECTED) {
    const matches = (s: Step) => s.method === method && path.test(s.path);
    assert.ok(i < steps.length && matches(steps[i]), `expected ${method} ${path}; got:\n${seen}`);
    while (i < steps.length && matches(steps[i])) {
      assertEquals(steps[i].status, status, `${method} ${steps[i].path}; all steps:\n${seen}`);
      i++;
    }
  }
  assertEquals(i, steps.length, `steps after the last expected one:\n${seen}`);
}

Deno.test({
  name: "readme: the Calling the API block runs top to bottom for a new free account, twice",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await which("jq");
    const blocks = shellBlocks(await Deno.readTextFile(README), "Calling the API");
    assertEquals(blocks.length, 1, "one sh block in Calling the API");
    const server = await startTestServer();
    const dir = await Deno.makeTempDir({ prefix: "dds-readme-" });
    try {
      // The block reads its picture from the repository (PIC=src/...), as from a clone's root.
      await Deno.symlink(new URL("src", ROOT).pathname, `${dir}/src`);
      for (let round = 1; round <= 2; round++) {
        // The second round proves the closing account deletion lets the block run again.
        const { steps, stdout } = await runBlock(blocks[0], server.url, dir);
        checkSteps(steps);
        // Issue 34: the picture goes to a temporary folder, not the clone's root, and printed
        // JSON bodies are not run together on one line.
        const saved = stdout.match(/^widget: (\S+\/widget\.png)$/m)?.[1];
        assert.ok(saved?.startsWith(`${dir}/tmp/`), `where the widget went:\n${stdout}`);
        assertEquals([...Deno.readDirSync(dir)].map((e) => e.name).sort(), ["bin", "src", "tmp"]);
        assertEquals(pngSize(await Deno.readFile(saved!)), [170, 170], "macos-widget-small");
        await Deno.remove(saved!);
        assert.ok(!/\}\{/.test(stdout), `JSON bodies run together:\n${stdout}`);
      }
    } finally {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("readme: the block's request bodies are the OpenAPI document's examples", async () => {
  const block = shellBlocks(await Deno.readTextFile(README), "Calling the API")[0];
  const doc = JSON.parse(await Deno.readTextFile(COMMITTED.user));
  const example = (method: string, path: string) =>
    doc.paths[path][method].requestBody.content["application/json"].example;
  for (
    const [method, path] of [
      ["post", "/auth/register"],
      ["post", "/auth/login"],
      ["post", "/api/personal-access-tokens"],
      ["delete", "/auth/account"],
    ]
  ) {
    const body = JSON.stringify(example(method, path));
    assert.ok(block.includes(`-d '${body}'`), `README sends ${body} to ${path}`);
  }
});
