/**
 * `deno task device-sim --trmnl` (tools/trmnl_sim.ts): a virtual TRMNL display, end to end
 * against the service. It sets up, prints its claim code, a user claims it through the API, and
 * each new picture (`filename` changed) is written to its folder; unbound, it sets up again.
 */
import { decode as decodePng } from "fast-png";
import { assert, assertEquals, expectStatus } from "./helpers/assert.ts";
import { type Client, registerUser } from "./helpers/http.ts";
import { eventually } from "./helpers/mqtt.ts";
import { serverSuite } from "./helpers/suite.ts";
import { customPush, greyPng } from "./helpers/custom_push.ts";
import {
  espAppImage,
  espAppVersion,
  runTrmnlSim,
  trmnlOptionsFromArgs,
} from "../tools/trmnl_sim.ts";
import { as, factoryEnv, tokenOf } from "./helpers/factory.ts";
import { parseArgs } from "../tools/device_sim.ts";

const suite = serverSuite("trmnl_sim", factoryEnv());

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

/** A firmware build uploaded by the factory and rolled out to every display of `model`. */
async function modelRollout(api: Client, model: string, version: string, file: Uint8Array) {
  const form = new FormData();
  form.set("version", version);
  form.set("models", model);
  form.set("file", new Blob([file as Uint8Array<ArrayBuffer>]), "fw.bin");
  const build = expectStatus(
    await api.post("/internal/factory/firmware", { token: tokenOf("sup"), raw: form }),
    201,
  );
  expectStatus(
    await as(api, "sup").post(`/firmware/${build.id}/rollouts`, {
      body: { targetKind: "model", target: model },
    }),
    201,
  );
  return build;
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
      // Issue 34: the "Nothing to show yet" screen was logged as "showing a push".
      const ready = out.next(
        /^showing the ready screen \("Nothing to show yet": claimed, no push\) \(\d+ bytes\) → (.+\.png)$/,
      );
      const { device } = expectStatus(
        await api.post("/api/devices/claim", { token, body: { code } }),
        200,
      );
      assertEquals(device.hwId, mac.replaceAll(":", "").toLowerCase());
      await ready; // "nothing to show yet"

      const shown = out.next(/^showing push (\S+) \(\d+ bytes\) → (.+\.png)$/);
      const push = await customPush(api, token, device.id, greyPng(640, 480));
      const [, pushId, file] = await shown;
      assertEquals(pushId, push);
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
      assertEquals(second.all.filter((l) => l.startsWith("showing the ready screen")).length, 1);
    } finally {
      await Deno.remove(outDir, { recursive: true });
    }
  },
);

/** A display of the simulator, set up and claimed by a new user; its lines and its stop. */
async function claimedSim(
  api: Parameters<Parameters<typeof suite.test>[1]>[0],
  url: string,
  args: string[],
) {
  const outDir = await Deno.makeTempDir({ prefix: "dds-trmnl-fw-" });
  const out = lines();
  const controller = new AbortController();
  const options = trmnlOptionsFromArgs(
    parseArgs(["--trmnl", "--api", url, "--out", outDir, "--every", "0.05", ...args]),
    { dataDir: "/nonexistent" },
  );
  const run = runTrmnlSim({ ...options, log: out.log }, controller.signal);
  const [, , code] = await out.next(/^set up as (\S+): claim code ([A-Z0-9]{6})$/, 0);
  const user = await registerUser(api);
  const ready = out.next(/^showing the ready screen/);
  const { device } = expectStatus(
    await api.post("/api/devices/claim", { token: user.accessToken, body: { code } }),
    200,
  );
  await ready;
  return {
    out,
    device,
    token: user.accessToken,
    outDir,
    async stop() {
      controller.abort();
      const result = await run;
      await Deno.remove(outDir, { recursive: true });
      return result;
    },
  };
}

suite.test(
  "device-sim --trmnl: an offered build is printed, downloaded, checked, and its version reported",
  async (api, s) => {
    // Issue 34: `update_firmware` was ignored without a word (and the day's offer used up).
    const model = `sim-${crypto.randomUUID().slice(0, 8)}`;
    const version = `1.7.${Date.now().toString(36)}`;
    const build = await modelRollout(api, model, version, espAppImage(version, 4096));
    const sim = await claimedSim(api, s.url, ["--model", model]);
    try {
      await sim.out.next(/^firmware update offered \(running 1\.6\.2\): http/, 0);
      const line = (await sim.out.next(/^firmware \S+ installed/, 0)).input;
      assertEquals(
        line,
        `firmware ${version} installed (4096 bytes, sha256 ${build.sha256}): FW-Version ${version} from now on`,
      );
      // The service sees the new version (the display's next polls send it).
      await eventually(async () => {
        const got = expectStatus(
          await api.get(`/api/devices/${sim.device.id}`, { token: sim.token }),
          200,
        );
        return got.firmware === version;
      });
    } finally {
      const result = await sim.stop();
      assertEquals(result.firmware, version);
    }
  },
);

suite.test(
  "device-sim --trmnl: a file that is not an app image is refused, said in a line",
  async (api, s) => {
    const model = `sim-${crypto.randomUUID().slice(0, 8)}`;
    const build = await modelRollout(
      api,
      model,
      `1.8.${Date.now().toString(36)}`,
      new Uint8Array(500).fill(7),
    );
    const sim = await claimedSim(api, s.url, ["--model", model]);
    try {
      const line = (await sim.out.next(/^firmware refused/, 0)).input;
      assertEquals(
        line,
        `firmware refused: not an ESP32 app image with a version (500 bytes, sha256 ${build.sha256}); still 1.6.2`,
      );
    } finally {
      assertEquals((await sim.stop()).firmware, "1.6.2");
    }
  },
);

suite.test(
  "device-sim --trmnl --press: the first poll with its key sends special_function",
  async (api, s) => {
    // Claimed first (a press needs a key), then a second run of the same folder presses.
    const sim = await claimedSim(api, s.url, []);
    expectStatus(
      await api.put(`/api/devices/${sim.device.id}/button`, {
        token: sim.token,
        body: { action: "identify" },
      }),
      200,
    );
    const outDir = await Deno.makeTempDir({ prefix: "dds-trmnl-press-" });
    await Deno.copyFile(`${sim.outDir}/trmnl-device.json`, `${outDir}/trmnl-device.json`);
    await sim.stop();
    try {
      const out = lines();
      const options = trmnlOptionsFromArgs(
        parseArgs(["--trmnl", "--api", s.url, "--out", outDir, "--press", "--once"]),
        { dataDir: "/nonexistent" },
      );
      assertEquals(options.press, true);
      await runTrmnlSim({ ...options, log: out.log });
      assertEquals(
        out.all[0],
        "button pressed: sent special_function: true (the service's action: identify)",
      );
      assert.match(out.all[1], /^showing the identify screen \(\d+ bytes\)/);
    } finally {
      await Deno.remove(outDir, { recursive: true });
    }
  },
);

Deno.test("espAppVersion reads the version of an ESP32 app image, and nothing else", () => {
  assertEquals(espAppVersion(espAppImage("1.6.3")), "1.6.3");
  const notImage = espAppImage("1.6.3");
  notImage[0] = 0;
  assertEquals(espAppVersion(notImage), null);
  assertEquals(espAppVersion(new Uint8Array(10)), null);
});

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
