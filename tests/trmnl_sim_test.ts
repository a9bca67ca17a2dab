/**
 * `deno task device-sim --trmnl` (tools/trmnl_sim.ts): a virtual TRMNL display, end to end
 * against the service. It sets up, prints its claim code, a user claims it through the API, and
 * each new picture (`filename` changed) is written to its folder; unbound, it sets up again.
 */
import { decode as decodePng } from "fast-png";
import { assert, assertEquals, expectStatus } from "./helpers/assert.ts";
import { registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { customPush, greyPng } from "./helpers/custom_push.ts";
import { runTrmnlSim, trmnlOptionsFromArgs } from "../tools/trmnl_sim.ts";
import { parseArgs } from "../tools/device_sim.ts";

const suite = serverSuite("trmnl_sim");

/** The simulator's lines, and a way to wait for the next one that matches. */
function lines() {
  const all: string[] = [];
  const waiters: Array<{ pattern: RegExp; from: number; resolve: (m: RegExpMatchArray) => void }> =
    [];
  const check = () => {
    for (const w of [...waiters]) {
      for (let i = w.from; i < all.length; i++) {
        const m = all[i].match(w.pattern);
        if (m) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(m);
          break;
        }
      }
    }
  };
  return {
    all,
    log: (line: string) => {
      if (Deno.env.get("SIM_DEBUG")) console.error("SIM", line);
      all.push(line);
      check();
    },
    /** The next line matching `pattern` from now on (or already printed, with `from`). */
    next(pattern: RegExp, from = all.length): Promise<RegExpMatchArray> {
      return new Promise((resolve) => {
        waiters.push({ pattern, from, resolve });
        check();
      });
    },
  };
}

suite.test(
  "device-sim --trmnl: setup, claim through the API, each new picture written",
  async (api, s) => {
    const outDir = await Deno.makeTempDir({ prefix: "dds-trmnl-sim-" });
    const out = lines();
    const controller = new AbortController();
    const options = trmnlOptionsFromArgs(
      parseArgs(["--trmnl", "--api", s.url, "--out", outDir, "--every", "0.05"]),
      { dataDir: "/nonexistent" },
    );
    const run = runTrmnlSim({ ...options, log: out.log }, controller.signal);
    try {
      const [, mac, code] = await out.next(/^set up as (\S+): claim code ([A-Z0-9]{6})$/, 0);
      const claimScreen = await out.next(/^showing the claim screen \(\d+ bytes\) → (.+\.png)$/, 0);
      assertEquals(decodePng(await Deno.readFile(claimScreen[1])).width, 800);
      assert.ok(out.all.some((l) => l.includes(`"code":"${code}"`)), out.all.join("\n"));

      const user = await registerUser(api);
      const token = user.accessToken;
      const ready = out.next(/^showing a push \(\d+ bytes\) → (.+\.png)$/);
      const { device } = expectStatus(
        await api.post("/api/devices/claim", { token, body: { code } }),
        200,
      );
      assertEquals(device.hwId, mac.replaceAll(":", "").toLowerCase());
      await ready; // "nothing to show yet"

      const shown = out.next(/^showing a push \(\d+ bytes\) → (.+\.png)$/);
      await customPush(api, token, device.id, greyPng(640, 480));
      const file = (await shown)[1];
      const png = decodePng(await Deno.readFile(file));
      assertEquals([png.width, png.height, png.depth], [800, 480, 1]);
      // The file is named by `filename`, the image's SHA-256.
      const digest = new Uint8Array(
        await crypto.subtle.digest("SHA-256", await Deno.readFile(file)),
      ).toHex();
      assertEquals(file, `${outDir}/${digest}.png`);

      // Refused: unbound, its key is 401; it sets up again and shows a new claim code.
      const refused = out.next(/^key refused \(HTTP 401/);
      const again = out.next(/^set up as \S+: claim code ([A-Z0-9]{6})$/);
      expectStatus(await api.post(`/api/devices/${device.id}/unbind`, { token }), 200);
      await refused;
      assert.notEqual((await again)[1], code);
    } finally {
      controller.abort();
      const result = await run;
      assert.ok(result.shown.length >= 3, out.all.join("\n"));
      await Deno.remove(outDir, { recursive: true });
    }
  },
);

suite.test(
  "device-sim --trmnl --once: a restart keeps its key and exits on its claimed picture",
  async (api, s) => {
    const outDir = await Deno.makeTempDir({ prefix: "dds-trmnl-once-" });
    try {
      const first = lines();
      const controller = new AbortController();
      const options = trmnlOptionsFromArgs(
        parseArgs(["--trmnl", "--api", s.url, "--out", outDir, "--every", "0.05", "--once"]),
        { dataDir: "/nonexistent" },
      );
      const pending = runTrmnlSim({ ...options, log: first.log }, controller.signal);
      const [, , code] = await first.next(/^set up as (\S+): claim code ([A-Z0-9]{6})$/, 0);
      await first.next(/^showing the claim screen/, 0);
      controller.abort();
      const stopped = await pending;
      assertEquals(stopped.friendlyId, code);

      const user = await registerUser(api);
      expectStatus(
        await api.post("/api/devices/claim", { token: user.accessToken, body: { code } }),
        200,
      );
      // The same folder: the same display and key, no second setup; --once ends the run.
      const second = lines();
      const result = await runTrmnlSim({ ...options, log: second.log });
      assertEquals(result.mac, stopped.mac);
      assert.ok(!second.all.some((l) => l.startsWith("set up as")), second.all.join("\n"));
      assertEquals(second.all.filter((l) => l.startsWith("showing a push")).length, 1);
    } finally {
      await Deno.remove(outDir, { recursive: true });
    }
  },
);

suite.test("device-sim --trmnl: its arguments; a bad --mac is refused", () => {
  const options = trmnlOptionsFromArgs(parseArgs(["--trmnl", "--model", "x"]), {
    dataDir: "/data",
    port: 9000,
  });
  assertEquals(
    [options.api, options.outDir, options.width, options.height, options.everySeconds],
    ["http://127.0.0.1:9000", "/data/device-sim-trmnl", 1872, 1404, undefined],
  );
  assert.throws(() => trmnlOptionsFromArgs(parseArgs(["--mac", "nope"]), { dataDir: "/d" }));
  return Promise.resolve();
});

suite.end();
