import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { ConfigError, parseConfig, parseDuration } from "./config.ts";

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

Deno.test("FACTORY_PRINCIPALS parses into principals with scope defaults", () => {
  const config = parseConfig({
    FACTORY_PRINCIPALS: JSON.stringify([
      { id: "op1", name: "Op", token: "t".repeat(32), role: "operator", batches: ["*"] },
    ]),
  });
  assertEquals(config.factoryPrincipals[0].batches, ["*"]);
  assertEquals(config.factoryPrincipals[0].skus, []);
});
