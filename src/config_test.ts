import { assert, assertEquals } from "../tests/helpers/assert.ts";
import {
  ConfigError,
  parseConfig,
  parseDuration,
  roleArgument,
  splitRoleProblem,
} from "./config.ts";

Deno.test("parseDuration reads hours, minutes, seconds and plain seconds", () => {
  assertEquals(parseDuration("72h", 1), 259200);
  assertEquals(parseDuration("90m", 1), 5400);
  assertEquals(parseDuration("3600s", 1), 3600);
  assertEquals(parseDuration("120", 1), 120);
});

Deno.test("parseDuration falls back on 0, garbage and unset (CONTRACT.md)", () => {
  for (const value of ["0", "0h", "abc", "-5h", "1.5h", "", undefined]) {
    assertEquals(parseDuration(value, 259200), 259200, String(value));
  }
});

Deno.test("defaults apply with nothing configured", () => {
  const config = parseConfig({});
  assertEquals(config.port, 8080);
  assertEquals(config.accessTokenTtlSeconds, 72 * 3600);
  assertEquals(config.publicBaseUrl, "http://localhost:8080");
  assertEquals(config.corsOrigins, ["http://localhost:3000"]);
  assertEquals(config.factoryPrincipals, []);
  assertEquals(config.targetless.maxRenditionPixels, 4_000_000);
  assertEquals(config.nfc.uriScheme, "dds");
  assertEquals(config.databaseUrl, undefined);
});

Deno.test("targetless limits: 0 or garbage means the default, never unlimited", () => {
  const config = parseConfig({
    TARGETLESS_MAX_RENDITION_PIXELS: "0",
    TARGETLESS_MAX_RENDITIONS_PER_PRESENTATION: "nope",
    TARGETLESS_MAX_CONCURRENT_RENDITIONS: "3",
  });
  assertEquals(config.targetless, {
    maxRenditionPixels: 4_000_000,
    maxRenditionsPerPresentation: 20,
    maxConcurrentRenditions: 3,
  });
});

Deno.test("a bad value stops start-up with one line naming the variable", () => {
  for (
    const [name, value] of [
      ["PORT", "eighty"],
      ["DATABASE_URL", "mysql://x"],
      ["FACTORY_PRINCIPALS", "[{"],
      [
        "FACTORY_PRINCIPALS",
        JSON.stringify(["a", "b"].map((token) => ({
          id: "same",
          token: `${token}-token-0123456789abcdef`,
          role: "operator",
        }))),
      ],
      [
        "FACTORY_PRINCIPALS",
        JSON.stringify(["a", "b"].map((id) => ({
          id,
          token: "one-token-0123456789abcdef",
          role: "operator",
        }))),
      ],
      ["MQTT_DEVICE_KEY", "c2hvcnQ="],
      ["MQTT_URL", "http://broker"],
      ["JWT_SECRET", "short"],
      ["DISPLAY_KEYLESS_NETWORKS", "10.0.0.0/8,lan"],
    ]
  ) {
    try {
      parseConfig({ [name]: value });
      assert.fail(`${name}=${value} was accepted`);
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, new RegExp(`^Invalid ${name}: `));
      assert.equal(error.message.includes("\n"), false);
    }
  }
});

Deno.test("DISPLAY_KEYLESS_NETWORKS: the private and loopback ranges, yours, or none", () => {
  const ranges = (value?: string) =>
    parseConfig({ DISPLAY_KEYLESS_NETWORKS: value }).displayKeylessNetworks.length;
  assertEquals(ranges(), 6);
  assertEquals(ranges(""), 6);
  assertEquals(ranges("192.168.7.0/24"), 1);
  assertEquals(ranges("none"), 0);
});

Deno.test("FACTORY_PRINCIPALS parses into principals with scope defaults", () => {
  const config = parseConfig({
    FACTORY_PRINCIPALS: JSON.stringify([
      { id: "op1", name: "Op", token: "t".repeat(32), role: "operator", batches: ["*"] },
    ]),
  });
  assertEquals(config.factoryPrincipals[0].batches, ["*"]);
  assertEquals(config.factoryPrincipals[0].skus, []);
});

Deno.test("ROLE and MQTT_SHARE_GROUP: defaults, values, refusals", () => {
  const defaults = parseConfig({});
  assertEquals([defaults.role, defaults.mqttShareGroup, defaults.renderThreads], [
    "all",
    "dds",
    undefined,
  ]);
  const api = parseConfig({ ROLE: "api", MQTT_SHARE_GROUP: "eu-1_a", RENDER_THREADS: "2" });
  assertEquals([api.role, api.mqttShareGroup, api.renderThreads], ["api", "eu-1_a", 2]);
  for (
    const [name, value] of [
      ["ROLE", "web"],
      ["MQTT_SHARE_GROUP", "a/b"],
      ["MQTT_SHARE_GROUP", "+"],
      ["RENDER_THREADS", "0"],
    ]
  ) {
    try {
      parseConfig({ [name]: value });
      throw new Error(`${name}=${value} was accepted`);
    } catch (error) {
      assert(error instanceof ConfigError, String(error));
      assert(error.message.startsWith(`Invalid ${name}:`), error.message);
    }
  }
});

Deno.test("--role on the command line: api, worker, all; anything else is one line", () => {
  assertEquals(roleArgument([]), undefined);
  assertEquals(roleArgument(["--role", "api"]), "api");
  assertEquals(roleArgument(["--role=worker"]), "worker");
  for (const args of [["--role"], ["--role", "web"], ["--port", "1"], ["api"]]) {
    try {
      roleArgument(args);
      throw new Error(`${args.join(" ")} was accepted`);
    } catch (error) {
      assert(error instanceof ConfigError, String(error));
    }
  }
});

Deno.test("a split role needs the external database and broker (embedded ones are one process)", () => {
  assertEquals(splitRoleProblem(parseConfig({})), null);
  assertEquals(splitRoleProblem(parseConfig({ ROLE: "all" })), null);
  const external = {
    DATABASE_URL: "postgres://db/dds",
    MQTT_URL: "mqtt://broker:1883",
    S3_BUCKET: "dds",
  };
  assertEquals(splitRoleProblem(parseConfig({ ...external, ROLE: "worker" })), null);
  assert(/^Role api needs DATABASE_URL and MQTT_URL/.test(
    splitRoleProblem(parseConfig({ ROLE: "api" }))!,
  ));
  assert(/^Role worker needs MQTT_URL: the embedded MQTT broker/.test(
    splitRoleProblem(parseConfig({ ROLE: "worker", DATABASE_URL: external.DATABASE_URL }))!,
  ));
  assert(/^Role api needs DATABASE_URL: the embedded database/.test(
    splitRoleProblem(parseConfig({ ROLE: "api", MQTT_URL: external.MQTT_URL }))!,
  ));
});

Deno.test("a split role needs a shared object store: S3, or DATA_DIR_SHARED=1 (issue 27)", () => {
  const external = { DATABASE_URL: "postgres://db/dds", MQTT_URL: "mqtt://broker:1883" };
  for (const role of ["api", "worker"]) {
    // Each process with its own disk store: the API's uploads never reach the workers.
    const problem = splitRoleProblem(parseConfig({ ...external, ROLE: role, DATA_DIR: "/srv/d" }));
    assertEquals(
      problem,
      `Role ${role} needs S3_BUCKET or DATA_DIR_SHARED=1: files stored on disk under DATA_DIR (/srv/d) are invisible to the other processes unless it is a volume they all mount`,
    );
    assertEquals(splitRoleProblem(parseConfig({ ...external, ROLE: role, S3_BUCKET: "b" })), null);
    for (const yes of ["1", "true"]) {
      const shared = parseConfig({ ...external, ROLE: role, DATA_DIR_SHARED: yes });
      assertEquals([shared.dataDirShared, splitRoleProblem(shared)], [true, null]);
    }
    assert(splitRoleProblem(parseConfig({ ...external, ROLE: role, DATA_DIR_SHARED: "0" })));
  }
  // One process reads its own disk: nothing to share.
  assertEquals(splitRoleProblem(parseConfig({ ...external, ROLE: "all" })), null);
  try {
    parseConfig({ DATA_DIR_SHARED: "maybe" });
    throw new Error("DATA_DIR_SHARED=maybe was accepted");
  } catch (error) {
    assert(error instanceof ConfigError && error.message.startsWith("Invalid DATA_DIR_SHARED:"));
  }
});
