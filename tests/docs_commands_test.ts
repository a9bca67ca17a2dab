// deno-lint-ignore-file no-explicit-any -- replies are untyped JSON; tests assert their shape
/**
 * Every curl command docs/*.md show is run here as a reader pastes it (issue 27's house rule;
 * README's block is tests/readme_test.ts): each `sh` block with bash against one started server,
 * with what the reader is told to have set (DDS_URL and DDS_TOKEN, a claimed display's ID, the
 * factory console's F and T, a file to upload) and `localhost:8080` pointing at the server. A
 * `curl` shim logs every request's status: each must be 2xx, or the status the doc says.
 * `deno task` lines inside a block are left out here: tests/commands_test.ts runs those.
 */
import { assert, assertEquals, expectStatus } from "./helpers/assert.ts";
import { runShell, shellBlocks, type Step, which } from "./helpers/doc_blocks.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";
import { client, registerUser } from "./helpers/http.ts";
import {
  bindRequestOf,
  createBatch,
  factoryEnv,
  provisionedDevice,
  tokenOf,
} from "./helpers/factory.ts";
import { createDevice, insertPush } from "./helpers/devices.ts";
import { runAdmin } from "../src/admin.ts";
import { startFakeStripe } from "./helpers/fake_stripe.ts";

const ROOT = new URL("../", import.meta.url);

interface Block {
  file: string;
  heading: string;
  /** Which `sh` block of the section, from 0. */
  index?: number;
  env: Record<string, string>;
  /** What a reader replaces (a code on their screen): each must be in the block. */
  replace?: Record<string, string>;
  /**
   * Steps whose status is not 2xx, as the doc says: [method, path, status], and which request to
   * that path it is (1 the first; all of them without).
   */
  expect?: [string, RegExp, number, number?][];
}

/** The block as a reader runs it: their server, their variables, no `deno task` lines. */
function prepared(block: string, url: string, replace: Record<string, string>): string {
  for (const [placeholder, value] of Object.entries(replace)) {
    assert.ok(block.includes(placeholder), `the block shows ${placeholder}`);
    block = block.replaceAll(placeholder, value);
  }
  return block
    .replaceAll("http://localhost:8080", url)
    .replace(/(^|[\s"'])localhost:8080/g, `$1${url}`)
    // `TOKEN=…`: "set this to yours"; the reader already has it.
    .replace(/\b([A-Z_]+)=…/g, ': "${$1:?}"')
    .split("\n")
    .map((line) => /^(?:[A-Z_]+=\S+ )*deno task /.test(line) ? `# ${line}` : line)
    .join("\n");
}

/** The `curl` invocations a block shows (outside comments). */
function curlCount(block: string): number {
  return block.split("\n").map((line) => line.replace(/(^|\s)#.*$/, ""))
    .join("\n").match(/\bcurl /g)?.length ?? 0;
}

/**
 * `sh` blocks with curl that this file does not run yet, and why; every other one must be run
 * (the test fails on a block that is neither, so a new doc block cannot go unrun).
 */
const NOT_RUN_HERE: Record<string, string> = {
  "docs/billing.md#Sign in with Google and Apple#0":
    "needs an Apple identity token: tests/oauth_test.ts",
};

/** `file#heading#index` of every `sh` block in docs/*.md that shows a curl command. */
async function curlBlocks(): Promise<string[]> {
  const keys: string[] = [];
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (!entry.isFile || !entry.name.endsWith(".md")) continue;
    const text = await Deno.readTextFile(new URL(`docs/${entry.name}`, ROOT));
    for (const [, heading] of text.matchAll(/^## (.+)$/gm)) {
      shellBlocks(text, heading).forEach((block, i) => {
        if (curlCount(block) > 0) keys.push(`docs/${entry.name}#${heading}#${i}`);
      });
    }
  }
  return keys.sort();
}

const ran = new Set<string>();

async function runBlock(server: TestServer, dir: string, b: Block): Promise<Step[]> {
  ran.add(`${b.file}#${b.heading}#${b.index ?? 0}`);
  const blocks = shellBlocks(await Deno.readTextFile(new URL(b.file, ROOT)), b.heading);
  const block = blocks[b.index ?? 0];
  assert.ok(block !== undefined, `${b.file} "${b.heading}" has block ${b.index ?? 0}`);
  const script = prepared(block, server.url, b.replace ?? {});
  const { steps } = await runShell(script, dir, b.env);
  const seen = steps.map((s) => `${s.status} ${s.method} ${s.path}`).join("\n");
  assert.ok(
    steps.length >= curlCount(block),
    `${b.file} "${b.heading}": ${curlCount(block)} curl commands, requests:\n${seen}`,
  );
  const seenCount = new Map<string, number>();
  for (const step of steps) {
    const key = `${step.method} ${step.path}`;
    const nth = (seenCount.get(key) ?? 0) + 1;
    seenCount.set(key, nth);
    const said = b.expect?.find(([m, p, _, n]) =>
      m === step.method && p.test(step.path) && (n === undefined || n === nth)
    );
    if (said) assertEquals(step.status, said[2], `${b.file}: ${step.method} ${step.path}\n${seen}`);
    else {
      assert.ok(
        step.status >= 200 && step.status < 300,
        `${b.file} "${b.heading}": ${step.status} ${step.method} ${step.path}; all:\n${seen}`,
      );
    }
  }
  return steps;
}

/** Variables the shell or the reader's machine sets: never a page's to define. */
const SHELL_VARIABLES = new Set(["HOME", "PATH", "PWD", "USER", "TMPDIR", "RANDOM", "?", "!"]);

/**
 * Issue 34: the variables a page's `sh` blocks use that neither that block nor an earlier one of
 * the page sets (`NAME=...`, `NAME=…` for "yours", `for NAME in`, `read NAME`): a reader who opens
 * the page does not know what `$F` or `$BATCH` is.
 */
export function unsetVariables(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map((m) => m[2]);
  const set = new Set<string>();
  const unset: string[] = [];
  for (const block of blocks) {
    // Comments and single-quoted strings expand nothing.
    const code = block.split("\n").map((line) => line.replace(/(^|\s)#.*$/, "")).join("\n");
    const uses: Array<{ name: string; at: number }> = [];
    for (
      const m of code.replace(/'[^']*'/g, (q) => " ".repeat(q.length)).matchAll(
        /\$\{?([A-Za-z_][A-Za-z0-9_]*)/g,
      )
    ) {
      uses.push({ name: m[1], at: m.index! });
    }
    const sets: Array<{ name: string; at: number }> = [];
    for (const m of code.matchAll(/(?:^|[\s;(]|\bexport )([A-Za-z_][A-Za-z0-9_]*)=/gm)) {
      sets.push({ name: m[1], at: m.index! });
    }
    for (const m of code.matchAll(/\b(?:for|read(?: -r)?) ([A-Za-z_][A-Za-z0-9_]*)/g)) {
      sets.push({ name: m[1], at: m.index! });
    }
    for (const use of uses) {
      if (set.has(use.name) || SHELL_VARIABLES.has(use.name)) continue;
      if (sets.some((s) => s.name === use.name && s.at < use.at)) continue;
      if (!unset.includes(use.name)) unset.push(use.name);
    }
    for (const s of sets) set.add(s.name);
  }
  return unset;
}

Deno.test("docs: each page sets the variables its shell blocks use before they use them", async () => {
  const missing: string[] = [];
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (!entry.isFile || !entry.name.endsWith(".md")) continue;
    const unset = unsetVariables(await Deno.readTextFile(new URL(`docs/${entry.name}`, ROOT)));
    if (unset.length) missing.push(`docs/${entry.name}: ${unset.map((v) => `$${v}`).join(", ")}`);
  }
  assertEquals(missing.sort(), [], "set them in the page's first block, e.g. DDS_TOKEN=…");
});

Deno.test("docs: the unset-variable check sees uses, sets, earlier blocks and comments", () => {
  const page = (...blocks: string[]) => blocks.map((b) => "```sh\n" + b + "\n```\n").join("\n");
  assertEquals(unsetVariables(page('curl $F/x -H "$H"')), ["F", "H"]);
  assertEquals(unsetVariables(page("F=http://x\nT=…", 'curl $F -H "Bearer $T"')), []);
  assertEquals(unsetVariables(page("curl $F", "F=http://x")), ["F"]);
  assertEquals(unsetVariables(page("# uses $F in a comment\njq '.a | $x'")), []);
  assertEquals(unsetVariables(page("for ID in a b; do curl $API/$ID; done\nAPI=x")), ["API"]);
});

let macCounter = 0;
function newMac(): string {
  const x = (Date.now() * 256 + macCounter++) % 2 ** 40;
  return ("D0" + x.toString(16).padStart(10, "0")).toUpperCase().match(/../g)!.join(":");
}

Deno.test({
  name: "docs: every curl block of docs/*.md runs as shown",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    await which("jq");
    const env = factoryEnv({ DISPLAY_SETUPS_PER_MINUTE: "100" });
    const factory =
      shellBlocks(await Deno.readTextFile(new URL("docs/factory.md", ROOT)), "A station's path")[0];
    env.FACTORY_PRINCIPALS = JSON.stringify([
      ...JSON.parse(env.FACTORY_PRINCIPALS),
      ...JSON.parse(factory.match(/FACTORY_PRINCIPALS='(.*?)'/)![1]),
    ]);
    // Stripe's API as billing.md's calls reach it (tests/billing_test.ts covers the webhooks).
    const stripe = startFakeStripe();
    Object.assign(env, {
      STRIPE_SECRET_KEY: stripe.key,
      STRIPE_API_URL: stripe.url,
      STRIPE_WEBHOOK_SECRET: "whsec_docs",
      STRIPE_PRICE_MONTHLY: "price_monthly_pro",
      STRIPE_PRICE_YEARLY: "price_yearly_pro",
    });
    const server = await startTestServer(env);
    const dir = await Deno.makeTempDir({ prefix: "dds-docs-" });
    const api = client(server.url);
    try {
      // What a reader has: an account, a PAT, a display set up (its claim code on screen).
      const user = await registerUser(api, "docs");
      const pat = expectStatus(
        await api.post("/api/personal-access-tokens", {
          token: user.accessToken,
          body: { name: "docs" },
        }),
        201,
      ).token as string;
      const display = expectStatus(
        await api.get("/api/setup", { headers: { ID: newMac(), Model: "og" } }),
        200,
      );
      await Deno.copyFile(
        new URL("src/infra/render/testdata/photos/misty.jpg", ROOT),
        `${dir}/photo.jpg`,
      );
      const dds = { DDS_URL: server.url, DDS_TOKEN: pat };
      let id = "";

      await t.step("displays.md", async () => {
        await runBlock(server, dir, {
          file: "docs/displays.md",
          heading: "Point a display at the service",
          env: dds,
        });
        // A key for a Kindle or Pi client by its MAC, as a board's first boot asks for one.
        await runBlock(server, dir, {
          file: "docs/displays.md",
          heading: "Point a display at the service",
          index: 1,
          env: dds,
        });
        await runBlock(server, dir, {
          file: "docs/displays.md",
          heading: "What each step shows",
          env: dds,
          replace: { K7P3XQ: display.friendly_id },
        });
        const devices = expectStatus(await api.get("/api/devices", { token: pat }), 200);
        const list: any[] = devices.items ?? devices.devices ?? devices;
        id = list.find((d) => d.transport === "http").id;
        await runBlock(server, dir, {
          file: "docs/displays.md",
          heading: "Each panel gets its own picture",
          env: { ...dds, ID: id },
        });
        await runBlock(server, dir, {
          file: "docs/displays.md",
          heading: "Clients that send no key",
          env: { ...dds, ID: id },
        });
        const profile = expectStatus(
          await api.get(`/api/devices/${id}/display-profile`, { token: pat }),
          200,
        );
        assertEquals(profile.keyless, true);
      });

      await t.step("providers.md", async () => {
        // The second fetch of the feed sends the first's ETag: 304, as the page says.
        await runBlock(server, dir, {
          file: "docs/providers.md",
          heading: "An image feed: one URL for anything that fetches a picture",
          env: dds,
          expect: [["GET", /^\/api\/feeds\//, 304, 2]],
        });
        await runBlock(server, dir, {
          file: "docs/providers.md",
          heading: "An image feed: one URL for anything that fetches a picture",
          index: 1,
          env: {
            ...dds,
            FEED_ID: JSON.parse(await Deno.readTextFile(`${dir}/feed.json`)).device.id,
          },
        });
        await runBlock(server, dir, {
          file: "docs/providers.md",
          heading: "A TRMNL on TRMNL's hosted service (a private plugin's webhook)",
          env: dds,
        });
      });

      await t.step("firmware.md", async () => {
        await Deno.writeFile(`${dir}/firmware.bin`, new Uint8Array(4096).fill(0xe9));
        const batch = await createBatch(api, { sku: "SKU-A" });
        await runBlock(server, dir, {
          file: "docs/firmware.md",
          heading: "The registry (factory console)",
          env: { F: `${server.url}/internal/factory`, T: tokenOf("sup"), BATCH: batch.id },
        });
        for (const heading of ["What a device gets", "Button actions of pull displays"]) {
          await runBlock(server, dir, {
            file: "docs/firmware.md",
            heading,
            env: { ...dds, DEVICE: id },
          });
        }
      });

      await t.step("devices.md", async () => {
        // A device bound through NFC, as the page's devices are.
        const device = await createDevice(server, user.user.id);
        const env = { API: server.url, TOKEN: user.accessToken, DEVICE: device.id };
        await runBlock(server, dir, { file: "docs/devices.md", heading: "Pushes", index: 1, env });
        // A push an analyze run queued.
        await insertPush(server, device, user.user.id, { status: "QUEUE" });
        await runBlock(server, dir, { file: "docs/devices.md", heading: "Pushes", index: 0, env });
        await runBlock(server, dir, {
          file: "docs/devices.md",
          heading: "From factory registration to a picture on the simulated device",
          env,
        });
        await runBlock(server, dir, {
          file: "docs/devices.md",
          heading: "Other device endpoints",
          env,
          expect: [["GET", /\/state$/, 404]],
        });
      });

      await t.step("factory.md", async () => {
        // The station's token is the doc's own principal's (its first block).
        const F = `${server.url}/internal/factory`;
        const T = JSON.parse(factory.match(/FACTORY_PRINCIPALS='(.*?)'/)![1])[0].token as string;
        await Deno.writeTextFile(
          `${dir}/devices.csv`,
          "serial,sku,hwRevision\nSN0101,SKU-A,r2\nSN0102,SKU-A,r2\n",
        );
        await runBlock(server, dir, {
          file: "docs/factory.md",
          heading: "A station's path",
          index: 1,
          env: { F, T },
          // A batch of a few devices has no second page.
          expect: [["POST", /nfc-files:download-zip$/, 404, 2]],
        });
        const provisioned = await provisionedDevice(api); // its first download is done
        await runBlock(server, dir, {
          file: "docs/factory.md",
          heading: "A station's path",
          index: 2,
          env: {
            F,
            CRED: provisioned.credential.id,
            OP: `Authorization: Bearer ${tokenOf("op")}`,
            SUP: `Authorization: Bearer ${tokenOf("sup")}`,
          },
        });
        const request = bindRequestOf(provisioned.file.nfcPayload);
        await runBlock(server, dir, {
          file: "docs/factory.md",
          heading: "Binding (user side)",
          env: { ACCESS_TOKEN: user.accessToken },
          replace: {
            '{"version":2,"keyId":"k1","hwId":"<hwId>","credentialVersion":1,"proof":"<p>"}': JSON
              .stringify(request),
          },
        });
      });

      await t.step("content.md", async () => {
        // The offline model summarizes and analyzes (no ANTHROPIC_API_KEY).
        const device = await createDevice(server, user.user.id);
        await Deno.copyFile(`${dir}/photo.jpg`, `${dir}/lake.jpg`);
        await runBlock(server, dir, {
          file: "docs/content.md",
          heading: "With curl",
          env: { TOKEN: user.accessToken, DEVICE: device.id },
          expect: [["GET", /^\/api\/files\/[0-9a-f-]{36}\/download$/, 302]],
        });
        const png = await Deno.readFile(`${dir}/preview.png`);
        assertEquals([...png.slice(1, 4)], [0x50, 0x4e, 0x47], "preview.png is a PNG");
      });

      await t.step("billing.md", async () => {
        await runBlock(server, dir, {
          file: "docs/billing.md",
          heading: "Billing (Stripe)",
          env: { TOKEN: user.accessToken },
        });
      });

      await t.step("targetless.md", async () => {
        // Mode auto needs pro (offline model without ANTHROPIC_API_KEY).
        await runAdmin(server.app.services.db, ["set-plan", user.user.email, "pro"]);
        const steps = await runBlock(server, dir, {
          file: "docs/targetless.md",
          heading: "The desktop-app flow",
          env: { PAT: pat },
        });
        const content = steps.find((s) => /\/contents\/[0-9a-f-]{36}$/.test(s.path))!;
        const reply = expectStatus(await api.get(content.path, { token: pat }), 200);
        assertEquals(reply.state, "ready", "the content was laid out");
      });

      await t.step("operations.md", async () => {
        await runBlock(server, dir, {
          file: "docs/operations.md",
          heading: "The playground",
          env: { PAT: pat },
        });
        const png = await Deno.readFile(`${dir}/scene.png`);
        assertEquals([...png.slice(1, 4)], [0x50, 0x4e, 0x47], "scene.png is a PNG");
      });

      await t.step("plugins.md", async () => {
        const file = "docs/plugins.md";
        const steps = await runBlock(server, dir, {
          file,
          heading: "A webhook plugin, fed by curl",
          env: dds,
        });
        const created = steps.find((s) => s.method === "POST" && s.path === "/api/plugins")!;
        assert.ok(created, "the page makes a plugin");
        const plugins = expectStatus(await api.get("/api/plugins", { token: pat }), 200);
        const plugin = plugins.find((p: any) => p.name === "Living room");
        const env = {
          ...dds,
          PLUGIN_ID: plugin.id,
          WEBHOOK_URL: plugin.webhookUrl,
          ID: id,
        };
        await runBlock(server, dir, {
          file,
          heading: "A webhook plugin, fed by curl",
          index: 1,
          env,
        });
        await runBlock(server, dir, { file, heading: "Preview it", env });
        const png = await Deno.readFile(`${dir}/preview-4bit.png`);
        assertEquals([...png.slice(1, 4)], [0x50, 0x4e, 0x47], "preview-4bit.png is a PNG");
        await runBlock(server, dir, { file, heading: "Show it on a display", env });
        await runBlock(server, dir, { file, heading: "A polling plugin", env });
        await runBlock(server, dir, { file, heading: "Recipes: import and export", env });
      });

      // Last: the display forgets everything at its next poll.
      await t.step("displays.md reset", async () => {
        await runBlock(server, dir, {
          file: "docs/displays.md",
          heading: "What a display never gets, unless you ask",
          env: { ...dds, ID: id },
        });
      });
      const all = await curlBlocks();
      const unrun = all.filter((k) => !ran.has(k) && !(k in NOT_RUN_HERE));
      assertEquals(unrun, [], "curl blocks no test runs (run them here, or say why not)");
      for (const k of Object.keys(NOT_RUN_HERE)) {
        assert.ok(all.includes(k) && !ran.has(k), `NOT_RUN_HERE's ${k} is stale`);
      }
    } finally {
      await server.close();
      await stripe.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
