/** The display protocol's pure rules: MACs, reported headers, log shapes, profiles, faults. */
import assert from "node:assert/strict";
import { AppError, unauthorized } from "../../errors.ts";
import { faultsAre503 } from "./protocol.ts";
import { normalizeMac, reportedHeaders } from "./headers.ts";
import { logEntries } from "./logs.ts";
import { toProfile } from "./views.ts";
import { secondsToWake } from "./sleep.ts";

Deno.test("a fault of the service is 503 with Retry-After, never a 500 a display would read", async () => {
  const fault = await faultsAre503(() => Promise.reject(new Error("connection refused")))
    .catch((error) => error);
  assert.ok(fault instanceof AppError);
  assert.equal(fault.status, 503);
  assert.equal(fault.headers["Retry-After"], "60");
  const refused = await faultsAre503(() => Promise.reject(unauthorized("Unknown display key")))
    .catch((error) => error);
  assert.equal(refused.status, 401);
  const internal = await faultsAre503(() => Promise.reject(new AppError("internal", "boom"))).catch(
    (error) => error,
  );
  assert.equal(internal.status, 503);
});

Deno.test("MACs: colons, dashes or none, any case; anything else is not one", () => {
  for (
    const mac of ["AA:BB:CC:DD:EE:FF", "aa-bb-cc-dd-ee-ff", "AABBCCDDEEFF", " aa:bb:cc:dd:ee:ff "]
  ) {
    assert.equal(normalizeMac(mac), "aabbccddeeff");
  }
  for (
    const bad of [
      null,
      "",
      "AA:BB:CC:DD:EE",
      "AA:BB-CC:DD:EE:FF",
      "GG:BB:CC:DD:EE:FF",
      "AABBCCDDEEFF00",
    ]
  ) {
    assert.equal(normalizeMac(bad), null);
  }
});

Deno.test("reported headers: short printable values kept, absurd sizes refused", () => {
  const kept = reportedHeaders(
    new Headers({
      "Battery-Voltage": "4.1",
      RSSI: "-60",
      "Wake-Time": "x".repeat(65),
      Width: "800",
    }),
  );
  assert.deepEqual(kept, { "battery-voltage": "4.1", rssi: "-60", width: "800" });
  for (const [name, value] of [["Width", "0"], ["Height", "4097"], ["png-width", "1e3"]]) {
    assert.throws(() => reportedHeaders(new Headers({ [name]: value })), /must be 1 to 4096/);
  }
});

Deno.test("logs: both firmware shapes; anything else is 400", () => {
  assert.equal(logEntries({ logs: [{ message: "a" }] }).length, 1);
  assert.equal(logEntries({ log: { logs_array: [{ message: "a" }, {}] } }).length, 2);
  for (const bad of [null, {}, { logs: {} }, { logs: [1] }, { logs: [[]] }, { log: {} }]) {
    assert.throws(() => logEntries(bad), (e: AppError) => e.status === 400);
  }
  assert.throws(() => logEntries({ logs: [{ message: "a\u0000" }] }), /cannot be stored/);
});

Deno.test("profile: registry, then reported size, then the owner's fields", () => {
  const row = {
    id: "d",
    mac: "aabbccddeeff",
    key_hash: "",
    api_key: null,
    friendly_id: null,
    code_expires_at: null,
    status: "claimed" as const,
    device_id: "x",
    model: "X",
    reported_width: null,
    reported_height: null,
    profile: {},
    refresh_rate: 900,
    created_at: new Date(),
    claimed_at: null,
    reset_requested_at: null,
    reported: null,
    seen_at: null,
    enrolled_by: null,
    name: null,
    keyless: false,
  };
  assert.deepEqual(toProfile(row), {
    model: "x",
    width: 1872,
    height: 1404,
    bitDepth: 4,
    colors: 16,
    rotation: 0,
    refreshRate: 900,
    sleepWindow: null,
    keyless: false,
  });
  const unknown = toProfile({
    ...row,
    model: "toaster",
    reported_width: 640,
    reported_height: 384,
  });
  assert.deepEqual([unknown.model, unknown.width, unknown.height, unknown.bitDepth], [
    "og",
    640,
    384,
    1,
  ]);
  const owned = toProfile({ ...row, reported_width: 640, profile: { model: "og", bitDepth: 2 } });
  assert.deepEqual([owned.width, owned.height, owned.bitDepth, owned.colors], [800, 480, 2, 4]);
});

Deno.test("sleep window: inside it, the seconds to its end; across midnight too", () => {
  const at = new Date("2026-11-26T23:30:00Z");
  assert.equal(secondsToWake({ start: "22:00", end: "06:00", timeZone: "UTC" }, at), 6.5 * 3600);
  assert.equal(secondsToWake({ start: "08:00", end: "18:00", timeZone: "UTC" }, at), null);
  // 23:30 UTC is 00:30 in Berlin (CET): inside 00:00-07:00, 6.5 h to go.
  assert.equal(
    secondsToWake({ start: "00:00", end: "07:00", timeZone: "Europe/Berlin" }, at),
    6.5 * 3600,
  );
  assert.equal(secondsToWake({ start: "06:00", end: "06:00", timeZone: "UTC" }, at), null);
});
