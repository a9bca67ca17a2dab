/**
 * SPEC 2.14, 3.4b, 3.5b, 4.8, 5.7: the factory console over HTTP. Every status of the 4.8 table,
 * role and scope combinations, the credential and download/approval state machines, and the
 * signature of a downloaded file checked with the published manifest key.
 */
import { fileURLToPath } from "node:url";
import { unzipSync } from "fflate";
import { sql } from "kysely";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { fetchChecked } from "./helpers/openapi.ts";
import type { TestServer } from "./helpers/server.ts";
import {
  as,
  createBatch,
  factoryEnv,
  MASTER_KEY,
  MQTT_DEVICE_KEY,
  orderNo,
  type PrincipalName,
  provisionedDevice,
  registerDevice,
  tokenOf,
} from "./helpers/factory.ts";
import { computeProof, sha256HexOf, verifyFile } from "../src/domains/factory/nfc_crypto.ts";
import { MAX_ZIP_FILES } from "../src/domains/factory/downloads_service.ts";
import { ANONYMOUS_AUDIT_PER_MINUTE } from "../src/domains/factory/access.ts";
import { deviceMqttPassword } from "../src/infra/mqtt/device_secret.ts";
import { checkFile } from "../tools/factory_station.ts";

const suite = serverSuite("factory", factoryEnv());

// ---- authentication ----------------------------------------------------------------------

suite.test("no, unknown or user bearer on a factory endpoint is 401", async (api) => {
  // The 401 says which credential the console expects (issue 34), the same for every refusal.
  const expected =
    /: Expected a factory principal's token \(FACTORY_PRINCIPALS\) in Authorization: Bearer$/;
  expectError(await api.get("/internal/factory/whoami"), 401, /^Missing bearer token/);
  expectError(
    await api.get("/internal/factory/whoami", { token: "sup-token-0123456789abcdeX" }),
    401,
    expected,
  );
  const user = await registerUser(api);
  expectError(
    await api.get("/internal/factory/whoami", { token: user.accessToken }),
    401,
    expected,
  );
  expectError(await api.get("/internal/factory/batches", { token: user.accessToken }), 401);
  const pat = expectStatus(
    await api.post("/api/personal-access-tokens", { token: user.accessToken, body: { name: "x" } }),
    201,
  );
  expectError(await api.get("/internal/factory/batches", { token: pat.token }), 401);
});

suite.test("factory tokens are 401 on user endpoints", async (api) => {
  for (const name of ["sup", "op", "aud"] as const) {
    // Which credential the endpoint takes (issue 34), never why this one was refused (SPEC 5.5).
    expectError(
      await api.get("/api/devices", { token: tokenOf(name) }),
      401,
      /^Unauthorized: Expected a user access token or a personal access token in Authorization: Bearer$/,
    );
    expectError(await api.get("/auth/me", { token: tokenOf(name) }), 401);
    expectError(
      await api.get("/api/personal-access-tokens", { token: tokenOf(name) }),
      401,
      /^Unauthorized: Expected a user access token in Authorization: Bearer$/,
    );
    expectError(
      await api.post("/api/devices/bind/nfc", { token: tokenOf(name), body: {} }),
      401,
    );
  }
});

suite.test("whoami returns the principal without its token", async (api) => {
  const me = expectStatus(await as(api, "scoped").get("/whoami"), 200);
  assertEquals(me, {
    id: "scoped",
    name: "Scoped",
    role: "operator",
    stationId: "st-1",
    factoryId: null,
    batches: ["PO-SCOPE"],
    skus: ["SKU-A"],
  });
});

suite.test("401 and 403 refusals are written to the audit log", async (api) => {
  await api.get("/internal/factory/stats", { token: "nope-nope-nope-nope-nope" });
  expectError(
    await as(api, "op").post("/batches", { body: { orderNo: orderNo(), sku: "X" } }),
    403,
  );
  const denied = expectStatus(await as(api, "sup").get("/audit-logs?action=batch.create"), 200);
  assert.ok(
    denied.items.some((i: { result: string; principalId: string }) =>
      i.result === "denied" && i.principalId === "op"
    ),
  );
  const unknown = expectStatus(await as(api, "sup").get("/audit-logs?action=stats.read"), 200);
  assert.ok(
    unknown.items.some((i: { result: string; principalId: null }) =>
      i.result === "denied" && i.principalId === null
    ),
  );
});

// ---- batches -----------------------------------------------------------------------------

suite.test("POST /batches: 201 for a supervisor; 403 operator and auditor; 409 duplicate; 400", async (api) => {
  const no = orderNo();
  const batch = expectStatus(
    await as(api, "sup").post("/batches", {
      body: { orderNo: no, sku: "SKU-A", hwRevision: "r2", plannedQuantity: 5, factoryId: "f-1" },
    }),
    201,
  );
  assertEquals(Object.keys(batch).sort(), [
    "createdAt",
    "createdBy",
    "factoryId",
    "hwRevision",
    "id",
    "orderNo",
    "plannedQuantity",
    "sku",
    "status",
  ]);
  assertEquals([batch.orderNo, batch.status, batch.createdBy, batch.plannedQuantity], [
    no,
    "open",
    "sup",
    5,
  ]);
  expectError(
    await as(api, "op").post("/batches", { body: { orderNo: orderNo(), sku: "A" } }),
    403,
  );
  expectError(
    await as(api, "aud").post("/batches", { body: { orderNo: orderNo(), sku: "A" } }),
    403,
  );
  expectError(await as(api, "sup").post("/batches", { body: { orderNo: no, sku: "B" } }), 409);
  expectError(await as(api, "sup").post("/batches", { body: { sku: "B" } }), 400);
  // plannedQuantity is an integer: values a lax coercion would read as 0 or 1 are 400.
  for (const plannedQuantity of ["", "5", null, true, []]) {
    expectError(
      await as(api, "sup").post("/batches", {
        body: { orderNo: orderNo(), sku: "A", plannedQuantity },
      }),
      400,
    );
  }
  // PostgreSQL cannot store a NUL character: bad input, so 400 rather than a 500.
  expectError(
    await as(api, "sup").post("/batches", { body: { orderNo: orderNo(), sku: "A\u0000" } }),
    400,
  );
  // Scope: a scoped supervisor may create only its own order numbers; [] may create nothing.
  expectError(
    await as(api, "scopedSup").post("/batches", { body: { orderNo: orderNo(), sku: "A" } }),
    403,
  );
  expectError(
    await as(api, "nobody").post("/batches", { body: { orderNo: orderNo(), sku: "A" } }),
    403,
  );
});

suite.test("GET /batches pages and filters within the scope; GET /batches/{id} 200, 400, 404", async (api) => {
  const inScope = await createBatch(api, { orderNo: "PO-SCOPE", sku: "SKU-A" });
  const other = await createBatch(api, { sku: "SKU-A" });
  const page = expectStatus(await as(api, "aud").get("/batches?limit=1&offset=0"), 200);
  assertEquals(Object.keys(page).sort(), ["items", "limit", "offset", "total"]);
  assertEquals([page.items.length, page.limit, page.offset], [1, 1, 0]);
  assert.ok(page.total >= 2);
  const open = expectStatus(await as(api, "aud").get("/batches?status=open&limit=200"), 200);
  assert.ok(open.items.every((b: { status: string }) => b.status === "open"));
  assertEquals(expectStatus(await as(api, "aud").get("/batches?status=closed"), 200).total, 0);
  expectError(await as(api, "aud").get("/batches?status=weird"), 400);
  expectError(await as(api, "aud").get("/batches?limit=201"), 400);

  const scoped = expectStatus(await as(api, "scoped").get("/batches"), 200);
  assertEquals(scoped.items.map((b: { id: string }) => b.id), [inScope.id]);
  assertEquals(expectStatus(await as(api, "nobody").get("/batches"), 200).total, 0);

  assertEquals(expectStatus(await as(api, "op").get(`/batches/${other.id}`), 200).id, other.id);
  expectError(await as(api, "scoped").get(`/batches/${other.id}`), 404);
  expectError(await as(api, "scoped").get(`/batches/${crypto.randomUUID()}`), 404);
  expectError(await as(api, "op").get("/batches/not-a-uuid"), 400);
});

// ---- registration ------------------------------------------------------------------------

suite.test("POST /devices: 201 with service-assigned hwId and thingName; 409 on a taken serial", async (api) => {
  const batch = await createBatch(api);
  const device = expectStatus(
    await as(api, "op").post("/devices", { body: { batchId: batch.id, serial: "S-0001" } }),
    201,
  );
  assertEquals(Object.keys(device).sort(), [
    "batchId",
    "bound",
    "createdAt",
    "credentialVersion",
    "hwId",
    "id",
    "lifecycleStatus",
    "nfcStatus",
    "serial",
    "thingName",
  ]);
  assert.match(device.hwId, /^[0-9a-f]{32}$/);
  assert.ok(device.thingName.length > 0);
  assertEquals([device.lifecycleStatus, device.nfcStatus, device.credentialVersion, device.bound], [
    "registered",
    "pending",
    0,
    false,
  ]);
  expectError(
    await as(api, "op").post("/devices", { body: { batchId: batch.id, serial: "S-0001" } }),
    409,
  );
  // The caller cannot choose the hardware identity.
  expectError(
    await as(api, "op").post("/devices", {
      body: { batchId: batch.id, serial: "S-2", hwId: "0".repeat(32) },
    }),
    400,
  );
  expectError(await as(api, "op").post("/devices", { body: { serial: "S-3" } }), 400);
  expectError(await as(api, "aud").post("/devices", { body: { batchId: batch.id } }), 403);
  expectError(
    await as(api, "op").post("/devices", { body: { batchId: crypto.randomUUID() } }),
    404,
  );
  // Without a serial the service assigns one.
  const auto = expectStatus(
    await as(api, "op").post("/devices", { body: { batchId: batch.id } }),
    201,
  );
  assert.ok(auto.serial.length > 0);
});

suite.test("POST /devices with Idempotency-Key: replay 200 same device; other body 409; bad key 400", async (api) => {
  const batch = await createBatch(api);
  const headers = { "idempotency-key": `key-${crypto.randomUUID()}` };
  const body = { batchId: batch.id, serial: "IDEM-1" };
  const first = expectStatus(await as(api, "op").post("/devices", { body, headers }), 201);
  const again = expectStatus(await as(api, "op").post("/devices", { body, headers }), 200);
  assertEquals(again, first);
  expectError(
    await as(api, "op").post("/devices", { body: { ...body, serial: "IDEM-2" }, headers }),
    409,
  );
  // The same serial under a new key (or none) is a duplicate submission.
  expectError(
    await as(api, "op").post("/devices", { body, headers: { "idempotency-key": "another-key-1" } }),
    409,
  );
  expectError(
    await as(api, "op").post("/devices", { body, headers: { "idempotency-key": "short" } }),
    400,
  );
  // SPEC 8: 8-128 printable ASCII characters; the space is printable ASCII.
  for (const key of ["x".repeat(129), "caf\u00e9-key-1"]) {
    expectError(
      await as(api, "op").post("/devices", {
        body: { batchId: batch.id },
        headers: { "idempotency-key": key },
      }),
      400,
    );
  }
  for (const [key, serial] of [["x".repeat(128), "IDEM-128"], ["key with spaces", "IDEM-SP"]]) {
    expectStatus(
      await as(api, "op").post("/devices", {
        body: { batchId: batch.id, serial },
        headers: { "idempotency-key": key },
      }),
      201,
    );
  }
});

suite.test("registration respects the scope: out-of-scope batch or SKU override is 403", async (api) => {
  const mine = await createBatch(api, { orderNo: `PO-SCOPE-${crypto.randomUUID()}`, sku: "SKU-A" });
  const scopedBatch = (await as(api, "sup").get("/batches?limit=200")).body.items
    .find((b: { orderNo: string }) => b.orderNo === "PO-SCOPE");
  assert.ok(scopedBatch, "PO-SCOPE batch exists from an earlier test");
  expectStatus(
    await as(api, "scoped").post("/devices", { body: { batchId: scopedBatch.id } }),
    201,
  );
  expectError(
    await as(api, "scoped").post("/devices", { body: { batchId: scopedBatch.id, sku: "SKU-B" } }),
    403,
  );
  expectError(await as(api, "scoped").post("/devices", { body: { batchId: mine.id } }), 403);
});

// ---- CSV import --------------------------------------------------------------------------

function csvForm(text: string, name = "devices.csv") {
  const form = new FormData();
  form.append("file", new File([text], name, { type: "text/csv" }));
  return form;
}

suite.test("POST /devices:batch-import: good rows land, bad rows reported, repeats idempotent", async (api) => {
  const batch = await createBatch(api, { hwRevision: "r1" });
  await registerDevice(api, batch.id, "CSV-EXISTING");
  const text = [
    "serial,sku,hwRevision",
    "CSV-1,,",
    "CSV-2,SKU-B,r9",
    ",SKU-A,",
    "bad serial!,,",
    "CSV-EXISTING,,",
    "CSV-1,,",
    "",
  ].join("\n");
  const reply = await api.post(`/internal/factory/devices:batch-import?batchId=${batch.id}`, {
    token: tokenOf("sup"),
    raw: csvForm(text),
  });
  const body = expectStatus(reply, 200);
  assertEquals(body.ok, 2);
  assertEquals(body.idempotent, 1);
  assertEquals(body.errors.map((e: { row: number }) => e.row), [3, 4, 6]);
  assert.ok(
    body.errors.every((e: { error: string; serial: string }) => typeof e.error === "string"),
  );
  const again = expectStatus(
    await api.post(`/internal/factory/devices:batch-import?batchId=${batch.id}`, {
      token: tokenOf("sup"),
      raw: csvForm("serial\nCSV-1\nCSV-2\n"),
    }),
    200,
  );
  // CSV-2 was created with SKU-B/r9: the bare row differs, so it is an error, CSV-1 idempotent.
  assertEquals([again.ok, again.idempotent, again.errors.length], [0, 1, 1]);
  const list = expectStatus(await as(api, "aud").get(`/devices?batchId=${batch.id}&q=CSV-2`), 200);
  assertEquals(list.items.map((d: { sku: string; hwRevision: string }) => [d.sku, d.hwRevision]), [[
    "SKU-B",
    "r9",
  ]]);
});

suite.test("CSV import refusals: 400 query/body/header, 403 operator, 404 batch, 413 over 4 MiB", async (api) => {
  const batch = await createBatch(api);
  const path = `/internal/factory/devices:batch-import?batchId=${batch.id}`;
  const sup = tokenOf("sup");
  expectError(
    await api.post("/internal/factory/devices:batch-import", {
      token: sup,
      raw: csvForm("serial\nA\n"),
    }),
    400,
  );
  expectError(await api.post(path, { token: sup, body: { serial: "A" } }), 400);
  expectError(await api.post(path, { token: sup, raw: csvForm("sku\nA\n") }), 400);
  expectError(await api.post(path, { token: tokenOf("op"), raw: csvForm("serial\nA\n") }), 403);
  expectError(await api.post(path, { raw: csvForm("serial\nA\n") }), 401);
  expectError(
    await api.post(`/internal/factory/devices:batch-import?batchId=${crypto.randomUUID()}`, {
      token: sup,
      raw: csvForm("serial\nA\n"),
    }),
    404,
  );
  const big = "serial\n" + "X".repeat(4 * 1024 * 1024);
  expectError(await api.post(path, { token: sup, raw: csvForm(big) }), 413);
});

// ---- device reads ------------------------------------------------------------------------

suite.test("GET /devices filters, pages (default 50, max 200) and respects the scope", async (api) => {
  const batch = await createBatch(api);
  const a = await registerDevice(api, batch.id, "LIST-A");
  await registerDevice(api, batch.id, "LIST-B");
  expectStatus(await as(api, "sup").post(`/devices/${a.id}/nfc-files`), 201);
  const all = expectStatus(await as(api, "aud").get(`/devices?batchId=${batch.id}`), 200);
  assertEquals([all.total, all.limit, all.offset, all.items.length], [2, 50, 0, 2]);
  const generated = expectStatus(
    await as(api, "aud").get(`/devices?batchId=${batch.id}&nfcStatus=generated`),
    200,
  );
  assertEquals(generated.items.map((d: { serial: string }) => d.serial), ["LIST-A"]);
  assertEquals(
    expectStatus(
      await as(api, "aud").get(`/devices?batchId=${batch.id}&lifecycleStatus=registered`),
      200,
    )
      .items.map((d: { serial: string }) => d.serial),
    ["LIST-B"],
  );
  assertEquals(
    expectStatus(await as(api, "aud").get(`/devices?batchId=${batch.id}&bound=false`), 200).total,
    2,
  );
  assertEquals(
    expectStatus(await as(api, "aud").get(`/devices?batchId=${batch.id}&bound=true`), 200).total,
    0,
  );
  assertEquals(
    expectStatus(await as(api, "aud").get(`/devices?q=${a.hwId.slice(4, 20)}`), 200).items[0].id,
    a.id,
  );
  assertEquals(
    expectStatus(await as(api, "aud").get(`/devices?batchId=${batch.id}&limit=1&offset=1`), 200)
      .items.length,
    1,
  );
  expectError(await as(api, "aud").get("/devices?limit=201"), 400);
  expectError(await as(api, "aud").get("/devices?limit=0"), 400);
  expectError(await as(api, "aud").get("/devices?batchId=nope"), 400);
  expectError(await as(api, "aud").get("/devices?nfcStatus=lost"), 400);
  assertEquals(expectStatus(await as(api, "nobody").get("/devices"), 200).total, 0);
  const scoped = expectStatus(await as(api, "scoped").get("/devices?limit=200"), 200);
  assert.ok(
    scoped.items.every((d: { orderNo: string; sku: string }) =>
      d.orderNo === "PO-SCOPE" && d.sku === "SKU-A"
    ),
  );
});

suite.test("GET /devices/{id}: DeviceView with the proof masked; 404 unknown or out of scope", async (api) => {
  const { device, credential } = await provisionedDevice(api);
  const view = expectStatus(await as(api, "aud").get(`/devices/${device.id}`), 200);
  assertEquals(
    Object.keys(view).sort(),
    [
      "batchId",
      "bound",
      "createdAt",
      "credential",
      "credentialVersion",
      "firmware",
      "hwId",
      "id",
      "lifecycleStatus",
      "nfcKeyId",
      "nfcStatus",
      "online",
      "orderNo",
      "serial",
      "sku",
      "thingName",
      "hwRevision",
    ].sort(),
  );
  assertEquals(view.credential.id, credential.id);
  assert.match(view.credential.payloadPreview, /&p=\*\*\*\*$/);
  assertEquals([view.nfcStatus, view.credentialVersion, view.nfcKeyId], ["downloaded", 1, "k2"]);
  assertEquals([view.credential.downloadCount, view.credential.requiresApproval], [1, true]);
  expectError(await as(api, "scoped").get(`/devices/${device.id}`), 404);
  expectError(await as(api, "aud").get(`/devices/${crypto.randomUUID()}`), 404);
  expectError(await as(api, "aud").get("/devices/xyz"), 400);
});

// ---- credentials -------------------------------------------------------------------------

suite.test("POST /devices/{id}/nfc-files: 201 CredentialView v1; 409 again; 403 auditor; 404", async (api) => {
  const batch = await createBatch(api);
  const device = await registerDevice(api, batch.id);
  expectError(await as(api, "aud").post(`/devices/${device.id}/nfc-files`), 403);
  const c = expectStatus(await as(api, "op").post(`/devices/${device.id}/nfc-files`), 201);
  assertEquals(Object.keys(c).sort(), [
    "credentialVersion",
    "downloadCount",
    "id",
    "issuedAt",
    "issuedBy",
    "keyId",
    "payloadPreview",
    "payloadSha256",
    "requiresApproval",
    "status",
  ]);
  assertEquals([c.credentialVersion, c.status, c.keyId, c.issuedBy, c.downloadCount], [
    1,
    "generated",
    "k2",
    "op",
    0,
  ]);
  assertEquals(
    c.payloadPreview,
    `dds://bind?v=2&kid=k2&hw=${device.hwId}&cv=1&p=****`,
  );
  expectError(await as(api, "op").post(`/devices/${device.id}/nfc-files`), 409);
  expectError(await as(api, "op").post(`/devices/${crypto.randomUUID()}/nfc-files`), 404);
  expectError(await as(api, "scoped").post(`/devices/${device.id}/nfc-files`), 403);
  const view = expectStatus(await as(api, "aud").get(`/devices/${device.id}`), 200);
  assertEquals([view.nfcStatus, view.lifecycleStatus], ["generated", "provisioned"]);
});

suite.test("POST /devices:nfc-files-batch-generate: supervisor generates every pending device", async (api) => {
  const batch = await createBatch(api);
  const done = await registerDevice(api, batch.id);
  await as(api, "sup").post(`/devices/${done.id}/nfc-files`);
  await registerDevice(api, batch.id);
  await registerDevice(api, batch.id);
  expectError(
    await as(api, "op").post("/devices:nfc-files-batch-generate", { body: { batchId: batch.id } }),
    403,
  );
  expectError(await as(api, "sup").post("/devices:nfc-files-batch-generate", { body: {} }), 400);
  expectError(
    await as(api, "sup").post("/devices:nfc-files-batch-generate", {
      body: { batchId: crypto.randomUUID() },
    }),
    404,
  );
  const out = expectStatus(
    await as(api, "sup").post("/devices:nfc-files-batch-generate", { body: { batchId: batch.id } }),
    200,
  );
  assertEquals([out.batchId, out.generated, out.items.length], [batch.id, 2, 2]);
  const again = expectStatus(
    await as(api, "sup").post("/devices:nfc-files-batch-generate", { body: { batchId: batch.id } }),
    200,
  );
  assertEquals(again.generated, 0);
  assertEquals(
    expectStatus(await as(api, "aud").get(`/devices?batchId=${batch.id}&nfcStatus=pending`), 200)
      .total,
    0,
  );
});

suite.test("download: 200 signed file that verifies with the published key and derives the proof", async (api) => {
  const batch = await createBatch(api, { hwRevision: "r3" });
  const device = await registerDevice(api, batch.id, "SIG-1");
  const c = expectStatus(await as(api, "op").post(`/devices/${device.id}/nfc-files`), 201);
  const reply = await as(api, "op").get(`/nfc-files/${c.id}/download`);
  const file = expectStatus(reply, 200);
  assert.match(reply.contentType ?? "", /^application\/json/);
  assert.match(reply.headers.get("content-disposition") ?? "", /filename="SIG-1\.nfc\.json"/);
  assertEquals(Object.keys(file).sort(), [
    "batchId",
    "credentialVersion",
    "hwId",
    "hwRevision",
    "issuedAt",
    "keyId",
    "manifestKeyId",
    "manifestSignature",
    "mqttPassword",
    "nfcPayload",
    "payloadSha256",
    "schemaVersion",
    "serial",
    "sku",
    "thingName",
    "type",
  ]);
  assertEquals([file.schemaVersion, file.serial, file.hwId, file.sku, file.hwRevision], [
    1,
    "SIG-1",
    device.hwId,
    "SKU-A",
    "r3",
  ]);
  const proof = await computeProof(MASTER_KEY, device.hwId, 1);
  assertEquals(file.nfcPayload, `dds://bind?v=2&kid=k2&hw=${device.hwId}&cv=1&p=${proof}`);
  assertEquals(file.payloadSha256, await sha256HexOf(file.nfcPayload));
  assertEquals(file.payloadSha256, c.payloadSha256);
  const keys = expectStatus(await as(api, "aud").get("/manifest-keys"), 200);
  assert.ok(Array.isArray(keys) && keys.length >= 1);
  assertEquals(Object.keys(keys[0]).sort(), ["algorithm", "createdAt", "id", "publicKey"]);
  assertEquals(keys[0].algorithm, "ed25519");
  const key = keys.find((k: { id: string }) => k.id === file.manifestKeyId);
  assert.ok(key, "the signing key is published");
  assertEquals(await verifyFile(key.publicKey, file), true);
  assertEquals(await verifyFile(key.publicKey, { ...file, serial: "SIG-2" }), false);
  // SPEC 2.14: the full proof is obtainable only through the download endpoint.
  const elsewhere = await Promise.all([
    as(api, "sup").get(`/devices/${device.id}`),
    as(api, "sup").get(`/devices?batchId=${batch.id}`),
    as(api, "sup").get(`/audit-logs?batchId=${batch.id}&limit=200`),
    as(api, "sup").post(`/devices/${device.id}/nfc-credentials:revoke-and-reissue`),
  ]);
  for (const reply of elsewhere) assert.ok(!JSON.stringify(reply.body).includes(proof));
});

suite.test("download refusals: 403 auditor, 404 unknown credential, 400 bad id", async (api) => {
  const { credential } = await provisionedDevice(api);
  expectError(await as(api, "aud").get(`/nfc-files/${credential.id}/download`), 403);
  expectError(await as(api, "scoped").get(`/nfc-files/${credential.id}/download`), 403);
  expectError(await as(api, "op").get(`/nfc-files/${crypto.randomUUID()}/download`), 404);
  expectError(await as(api, "op").get("/nfc-files/zzz/download"), 400);
});

suite.test(
  "SPEC 3.5b: repeat download needs one approved request; approval is single-use and personal",
  async (api, server) => {
    const { credential: c } = await provisionedDevice(api); // first download done by sup
    const op = as(api, "op");
    expectError(await op.get(`/nfc-files/${c.id}/download`), 403, /approved download request/);
    expectError(await as(api, "aud").post(`/nfc-files/${c.id}/download-requests`), 403);
    const request = expectStatus(await op.post(`/nfc-files/${c.id}/download-requests`), 201);
    assertEquals([request.status, request.credentialId, request.requestedBy], [
      "pending",
      c.id,
      "op",
    ]);
    assertEquals(Object.keys(request).includes("createdAt"), true);
    expectError(await op.post(`/nfc-files/${c.id}/download-requests`), 409);
    expectError(await as(api, "op2").post(`/nfc-files/${c.id}/download-requests`), 409);
    // Still pending: no download yet.
    expectError(await op.get(`/nfc-files/${c.id}/download`), 403);
    // Only a supervisor approves.
    expectError(await op.post(`/download-requests/${request.id}:approve`), 403);
    expectError(await as(api, "aud").post(`/download-requests/${request.id}:approve`), 403);
    expectError(
      await as(api, "sup").post(`/download-requests/${crypto.randomUUID()}:approve`),
      404,
    );
    const approved = expectStatus(
      await as(api, "sup").post(`/download-requests/${request.id}:approve`),
      200,
    );
    assertEquals([approved.status, approved.decidedBy], ["approved", "sup"]);
    const window = Date.parse(approved.expiresAt) - Date.parse(approved.decidedAt);
    assertEquals(window, 15 * 60 * 1000);
    expectError(await as(api, "sup").post(`/download-requests/${request.id}:approve`), 409);
    expectError(
      await as(api, "sup").post(`/download-requests/${request.id}:reject`, {
        body: { reason: "x" },
      }),
      409,
    );
    // Another operator cannot use op's approval.
    expectError(await as(api, "op2").get(`/nfc-files/${c.id}/download`), 403);
    expectStatus(await op.get(`/nfc-files/${c.id}/download`), 200);
    expectError(await op.get(`/nfc-files/${c.id}/download`), 403);
    // A supervisor repeats directly.
    expectStatus(await as(api, "sup").get(`/nfc-files/${c.id}/download`), 200);

    // An approval past its window is not usable.
    const late = expectStatus(await op.post(`/nfc-files/${c.id}/download-requests`), 201);
    expectStatus(await as(api, "sup").post(`/download-requests/${late.id}:approve`), 200);
    await sql`UPDATE nfc_download_requests SET expires_at = now() - interval '1 second' WHERE id = ${late.id}`
      .execute(server.app.services.db);
    expectError(await op.get(`/nfc-files/${c.id}/download`), 403);

    const downloads = expectStatus(
      await as(api, "aud").get(`/audit-logs?action=nfc_file.download&limit=200`),
      200,
    );
    const vias = downloads.items.filter((i: { detail: { credentialId: string } }) =>
      i.detail.credentialId === c.id
    ).map((i: { result: string; detail: { via?: string } }) => `${i.result}:${i.detail.via ?? ""}`);
    assertEquals(vias.filter((v: string) => v.startsWith("success")).sort(), [
      "success:approval",
      "success:first",
      "success:supervisor",
    ]);
    assert.ok(vias.includes("denied:"));
  },
);

suite.test("reject needs a reason; listing shows operators their own requests", async (api) => {
  const { credential: c, batchId } = await provisionedDevice(api);
  const r = expectStatus(await as(api, "op2").post(`/nfc-files/${c.id}/download-requests`), 201);
  expectError(await as(api, "sup").post(`/download-requests/${r.id}:reject`), 400);
  expectError(
    await as(api, "sup").post(`/download-requests/${r.id}:reject`, { body: { reason: "" } }),
    400,
  );
  expectError(
    await as(api, "op").post(`/download-requests/${r.id}:reject`, { body: { reason: "no" } }),
    403,
  );
  const rejected = expectStatus(
    await as(api, "sup").post(`/download-requests/${r.id}:reject`, {
      body: { reason: "not needed" },
    }),
    200,
  );
  assertEquals([rejected.status, rejected.reason], ["rejected", "not needed"]);
  expectError(await as(api, "op2").get(`/nfc-files/${c.id}/download`), 403);
  // A new request is allowed once none is pending.
  const next = expectStatus(await as(api, "op2").post(`/nfc-files/${c.id}/download-requests`), 201);

  const forSup = expectStatus(
    await as(api, "sup").get(`/download-requests?batchId=${batchId}`),
    200,
  );
  assertEquals(forSup.total, 2);
  assertEquals(
    expectStatus(
      await as(api, "aud").get(`/download-requests?batchId=${batchId}&status=pending`),
      200,
    )
      .items.map((i: { id: string }) => i.id),
    [next.id],
  );
  assertEquals(
    expectStatus(
      await as(api, "sup").get(`/download-requests?batchId=${batchId}&status=rejected`),
      200,
    )
      .items.map((i: { id: string }) => i.id),
    [r.id],
  );
  assertEquals(
    expectStatus(await as(api, "op").get(`/download-requests?batchId=${batchId}`), 200).total,
    0,
  );
  assertEquals(
    expectStatus(await as(api, "op2").get(`/download-requests?batchId=${batchId}`), 200).total,
    2,
  );
  assertEquals(expectStatus(await as(api, "nobody").get("/download-requests"), 200).total, 0);
  expectError(await as(api, "sup").get("/download-requests?status=used"), 400);
});

suite.test("SPEC 3.4b revoke-and-reissue: supervisor only; old file 404; version + 1; 409 without credential", async (api) => {
  const { device, credential: old } = await provisionedDevice(api);
  const pending = expectStatus(
    await as(api, "op").post(`/nfc-files/${old.id}/download-requests`),
    201,
  );
  const path = `/devices/${device.id}/nfc-credentials:revoke-and-reissue`;
  expectError(await as(api, "op").post(path), 403);
  expectError(await as(api, "aud").post(path), 403);
  expectError(await as(api, "scopedSup").post(path), 403);
  expectError(
    await as(api, "sup").post(`/devices/${crypto.randomUUID()}/nfc-credentials:revoke-and-reissue`),
    404,
  );
  const fresh = expectStatus(
    await as(api, "sup").post(path, { body: { reason: "tag lost" } }),
    200,
  );
  assertEquals([fresh.credentialVersion, fresh.status, fresh.downloadCount], [2, "generated", 0]);
  assert.notEqual(fresh.id, old.id);
  expectError(await as(api, "sup").get(`/nfc-files/${old.id}/download`), 404);
  expectError(await as(api, "op").post(`/nfc-files/${old.id}/download-requests`), 404);
  const closed = expectStatus(
    await as(api, "sup").get(`/download-requests?status=rejected&limit=200`),
    200,
  );
  assert.ok(closed.items.some((i: { id: string }) => i.id === pending.id));
  const view = expectStatus(await as(api, "aud").get(`/devices/${device.id}`), 200);
  assertEquals([view.credentialVersion, view.nfcStatus, view.credential.id], [
    2,
    "generated",
    fresh.id,
  ]);
  // The new file is a first download again, available to an operator.
  const file = expectStatus(await as(api, "op").get(`/nfc-files/${fresh.id}/download`), 200);
  assertEquals(file.credentialVersion, 2);
  const third = expectStatus(await as(api, "sup").post(path), 200);
  assertEquals(third.credentialVersion, 3);
  // A device that never had a credential has nothing to revoke.
  const bare = await registerDevice(api, (await createBatch(api)).id);
  expectError(
    await as(api, "sup").post(`/devices/${bare.id}/nfc-credentials:revoke-and-reissue`),
    409,
  );
});

suite.test(
  "POST /nfc-files:download-zip: supervisor gets every signed file of the batch",
  async (api, server) => {
    const batch = await createBatch(api);
    for (const serial of ["Z-1", "Z-2", "Z-3"]) await registerDevice(api, batch.id, serial);
    expectError(
      await as(api, "sup").post("/nfc-files:download-zip", { body: { batchId: batch.id } }),
      404,
    );
    await as(api, "sup").post("/devices:nfc-files-batch-generate", { body: { batchId: batch.id } });
    expectError(
      await as(api, "op").post("/nfc-files:download-zip", { body: { batchId: batch.id } }),
      403,
    );
    expectError(await as(api, "sup").post("/nfc-files:download-zip", { body: {} }), 400);
    expectError(
      await as(api, "sup").post("/nfc-files:download-zip", {
        body: { batchId: crypto.randomUUID() },
      }),
      404,
    );
    const keys = (await as(api, "aud").get("/manifest-keys")).body;
    const res = await fetchChecked(`${server.factoryUrl}/internal/factory/nfc-files:download-zip`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokenOf("sup")}`, "content-type": "application/json" },
      body: JSON.stringify({ batchId: batch.id }),
    });
    assertEquals(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/zip/);
    assert.match(res.headers.get("content-disposition") ?? "", /\.zip"$/);
    const entries = unzipSync(new Uint8Array(await res.arrayBuffer()));
    assertEquals(Object.keys(entries).sort(), ["Z-1.nfc.json", "Z-2.nfc.json", "Z-3.nfc.json"]);
    for (const [name, bytes] of Object.entries(entries)) {
      const file = JSON.parse(new TextDecoder().decode(bytes));
      assertEquals(`${file.serial}.nfc.json`, name);
      const key = keys.find((k: { id: string }) => k.id === file.manifestKeyId);
      assertEquals(await verifyFile(key.publicKey, file), true);
    }
    // The ZIP counts as a download of each file.
    const view = expectStatus(await as(api, "aud").get(`/devices?batchId=${batch.id}`), 200);
    assert.ok(view.items.every((d: { nfcStatus: string }) => d.nfcStatus === "downloaded"));
  },
);

// ---- statistics and audit ----------------------------------------------------------------

suite.test("stats per batch and global count registered, generated, downloaded, bound", async (api) => {
  const batch = await createBatch(api, { plannedQuantity: 7 });
  await provisionedDevice(api, batch.id);
  const d2 = await registerDevice(api, batch.id);
  await as(api, "sup").post(`/devices/${d2.id}/nfc-files`);
  await registerDevice(api, batch.id);
  const stats = expectStatus(await as(api, "aud").get(`/batches/${batch.id}/stats`), 200);
  assertEquals(stats.batch.id, batch.id);
  assertEquals(stats.counts, {
    registered: 3,
    credentialGenerated: 2,
    downloaded: 1,
    bound: 0,
    plannedQuantity: 7,
  });
  assertEquals(expectStatus(await as(api, "aud").get(`/stats?batchId=${batch.id}`), 200), stats);
  const global = expectStatus(await as(api, "aud").get("/stats"), 200);
  assert.ok(global.batches >= 1 && global.counts.registered >= 3);
  assertEquals(expectStatus(await as(api, "nobody").get("/stats"), 200), {
    batches: 0,
    counts: { registered: 0, credentialGenerated: 0, downloaded: 0, bound: 0, plannedQuantity: 0 },
  });
  expectError(await as(api, "scoped").get(`/batches/${batch.id}/stats`), 404);
  expectError(await as(api, "aud").get(`/stats?batchId=${crypto.randomUUID()}`), 404);
  expectError(await as(api, "aud").get("/stats?batchId=x"), 400);
});

suite.test("audit log: every write has its row; filters by batch, device, action and time", async (api) => {
  const start = new Date().toISOString();
  const { batchId, device, credential } = await provisionedDevice(api);
  await as(api, "sup").post(`/devices/${device.id}/nfc-credentials:revoke-and-reissue`);
  const byBatch = expectStatus(await as(api, "aud").get(`/audit-logs?batchId=${batchId}`), 200);
  assertEquals(Object.keys(byBatch).sort(), ["items", "limit", "offset", "total"]);
  assertEquals(byBatch.limit, 50);
  const actions = byBatch.items.map((i: { action: string }) => i.action).sort();
  assertEquals(actions, [
    "batch.create",
    "device.register",
    "nfc_credential.revoke",
    "nfc_file.download",
    "nfc_file.generate",
  ]);
  const item = byBatch.items[0];
  assertEquals(Object.keys(item).sort(), [
    "action",
    "batchId",
    "createdAt",
    "detail",
    "deviceId",
    "id",
    "principalId",
    "principalName",
    "result",
  ]);
  assertEquals([item.principalId, item.principalName, item.result], [
    "sup",
    "Supervisor",
    "success",
  ]);
  const byDevice = expectStatus(
    await as(api, "aud").get(`/audit-logs?deviceId=${device.id}&action=nfc_file.download`),
    200,
  );
  assertEquals(byDevice.items.length, 1);
  assertEquals(byDevice.items[0].detail.credentialId, credential.id);
  const later = encodeURIComponent(new Date(Date.now() + 60_000).toISOString());
  assertEquals(
    expectStatus(await as(api, "aud").get(`/audit-logs?batchId=${batchId}&from=${later}`), 200)
      .total,
    0,
  );
  assertEquals(
    expectStatus(
      await as(api, "aud").get(
        `/audit-logs?batchId=${batchId}&from=${encodeURIComponent(start)}&to=${later}`,
      ),
      200,
    ).total,
    5,
  );
  expectError(await as(api, "aud").get("/audit-logs?from=yesterday"), 400);
  // A scoped principal sees only rows of its batches.
  const scoped = expectStatus(await as(api, "scoped").get(`/audit-logs?batchId=${batchId}`), 200);
  assertEquals(scoped.total, 0);
});

// ---- issue 16: scope per device ------------------------------------------------------------

/** A batch of SKU-A holding device `a` (SKU-A) and device `b` (SKU-B by override). */
async function mixedBatch(api: Client) {
  const batch = await createBatch(api, { sku: "SKU-A" });
  const a = await registerDevice(api, batch.id, `A-${crypto.randomUUID().slice(0, 8)}`);
  const b = expectStatus(
    await as(api, "sup").post("/devices", {
      body: { batchId: batch.id, serial: `B-${crypto.randomUUID().slice(0, 8)}`, sku: "SKU-B" },
    }),
    201,
  );
  return { batch, a, b };
}

/** POST /nfc-files:download-zip as a principal; the entries of a 200. */
async function zipAs(server: TestServer, name: PrincipalName, body: unknown) {
  const res = await fetchChecked(`${server.factoryUrl}/internal/factory/nfc-files:download-zip`, {
    method: "POST",
    headers: { authorization: `Bearer ${tokenOf(name)}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const entries = res.status === 200 ? unzipSync(bytes) : {};
  const files = Object.fromEntries(
    Object.entries(entries).map(([k, v]) => [k, JSON.parse(new TextDecoder().decode(v))]),
  );
  return { status: res.status, headers: res.headers, files, bytes };
}

/** Everything secret a device's files hold: its proofs and MQTT passwords up to `version`. */
async function secretsOf(device: { hwId: string; thingName: string }, version = 2) {
  const out: string[] = [];
  for (let v = 1; v <= version; v++) {
    out.push(await computeProof(MASTER_KEY, device.hwId, v));
    out.push(deviceMqttPassword(MQTT_DEVICE_KEY, device.thingName, v));
  }
  return out;
}

suite.test("issue 16: batch generation by a SKU-scoped supervisor leaves another SKU's device alone", async (api) => {
  const { batch, a, b } = await mixedBatch(api);
  const out = expectStatus(
    await as(api, "skuSup").post("/devices:nfc-files-batch-generate", {
      body: { batchId: batch.id },
    }),
    200,
  );
  assertEquals([out.generated, out.items.length], [1, 1]);
  assertEquals(out.items[0].payloadPreview.includes(a.hwId), true);
  assertEquals(
    expectStatus(await as(api, "sup").get(`/devices/${b.id}`), 200).nfcStatus,
    "pending",
  );
  assertEquals(
    expectStatus(await as(api, "sup").get(`/devices/${a.id}`), 200).nfcStatus,
    "generated",
  );
  // The device of another SKU is not in the refusal-free count of a second run either.
  assertEquals(
    expectStatus(
      await as(api, "skuSup").post("/devices:nfc-files-batch-generate", {
        body: { batchId: batch.id },
      }),
      200,
    ).generated,
    0,
  );
  // A batch-scoped supervisor cannot batch-generate or export a batch outside its scope.
  expectError(
    await as(api, "scopedSup").post("/devices:nfc-files-batch-generate", {
      body: { batchId: batch.id },
    }),
    403,
  );
});

suite.test(
  "issue 16: the ZIP of a SKU-scoped supervisor holds only its SKU's files",
  async (api, server) => {
    const { batch, a, b } = await mixedBatch(api);
    await as(api, "sup").post("/devices:nfc-files-batch-generate", { body: { batchId: batch.id } });
    const zip = await zipAs(server, "skuSup", { batchId: batch.id });
    assertEquals(zip.status, 200);
    assertEquals(Object.keys(zip.files), [`${a.serial}.nfc.json`]);
    const text = new TextDecoder().decode(zip.bytes);
    for (const secret of await secretsOf(b, 1)) assert.ok(!text.includes(secret));
    // b's file was not exported: still a first download for a supervisor of its SKU.
    const view = expectStatus(await as(api, "sup").get(`/devices/${b.id}`), 200);
    assertEquals([view.nfcStatus, view.credential.downloadCount], ["generated", 0]);
    assertEquals((await zipAs(server, "scopedSup", { batchId: batch.id })).status, 403);
    // The unrestricted supervisor gets both.
    const all = await zipAs(server, "sup", { batchId: batch.id });
    assertEquals(
      Object.keys(all.files).sort(),
      [`${a.serial}.nfc.json`, `${b.serial}.nfc.json`].sort(),
    );
  },
);

suite.test("issue 16: single paths refuse another SKU's device in a batch in scope", async (api) => {
  const { a, b } = await mixedBatch(api);
  // Reads: 404; writes: 403.
  expectError(await as(api, "skuAud").get(`/devices/${b.id}`), 404);
  expectError(await as(api, "skuOp").post(`/devices/${b.id}/nfc-files`), 403);
  const cb = expectStatus(await as(api, "sup").post(`/devices/${b.id}/nfc-files`), 201);
  expectError(await as(api, "skuOp").get(`/nfc-files/${cb.id}/download`), 403);
  expectError(await as(api, "skuSup").get(`/nfc-files/${cb.id}/download`), 403);
  expectError(await as(api, "skuOp").post(`/nfc-files/${cb.id}/download-requests`), 403);
  expectStatus(await as(api, "sup").get(`/nfc-files/${cb.id}/download`), 200);
  const request = expectStatus(
    await as(api, "op").post(`/nfc-files/${cb.id}/download-requests`),
    201,
  );
  expectError(await as(api, "skuSup").post(`/download-requests/${request.id}:approve`), 403);
  expectError(
    await as(api, "skuSup").post(`/download-requests/${request.id}:reject`, {
      body: { reason: "mine now" },
    }),
    403,
  );
  expectError(
    await as(api, "skuSup").post(`/devices/${b.id}/nfc-credentials:revoke-and-reissue`),
    403,
  );
  // The twin in its own SKU passes every one of them.
  expectStatus(await as(api, "skuAud").get(`/devices/${a.id}`), 200);
  const ca = expectStatus(await as(api, "skuOp").post(`/devices/${a.id}/nfc-files`), 201);
  expectStatus(await as(api, "skuOp").get(`/nfc-files/${ca.id}/download`), 200);
  const ra = expectStatus(
    await as(api, "skuOp").post(`/nfc-files/${ca.id}/download-requests`),
    201,
  );
  expectStatus(await as(api, "skuSup").post(`/download-requests/${ra.id}:approve`), 200);
  expectStatus(
    await as(api, "skuSup").post(`/devices/${a.id}/nfc-credentials:revoke-and-reissue`),
    200,
  );
  // Refusals are audited, with the device they were about.
  const denied = expectStatus(
    await as(api, "sup").get(`/audit-logs?deviceId=${b.id}&limit=200`),
    200,
  ).items.filter((i: { result: string; principalId: string }) => i.result === "denied");
  assert.ok(
    denied.length >= 7 &&
      denied.every((i: { principalId: string }) => i.principalId.startsWith("sku")),
  );
});

suite.test(
  "issue 16: lists, stats and the audit log count only what the principal may see",
  async (api, server) => {
    const { batch, a, b } = await mixedBatch(api);
    await as(api, "sup").post("/devices:nfc-files-batch-generate", { body: { batchId: batch.id } });
    const zip = await zipAs(server, "sup", { batchId: batch.id });
    assertEquals(Object.keys(zip.files).length, 2);
    const [ca, cb] = [zip.files[`${a.serial}.nfc.json`], zip.files[`${b.serial}.nfc.json`]];
    const credA = expectStatus(await as(api, "sup").get(`/devices/${a.id}`), 200).credential;
    const credB = expectStatus(await as(api, "sup").get(`/devices/${b.id}`), 200).credential;
    expectStatus(await as(api, "op").post(`/nfc-files/${credA.id}/download-requests`), 201);
    expectStatus(await as(api, "op").post(`/nfc-files/${credB.id}/download-requests`), 201);
    // A ZIP of the SKU-scoped supervisor covers SKU-A only: its row is visible to SKU-A readers.
    assertEquals((await zipAs(server, "skuSup", { batchId: batch.id })).status, 200);

    const devices = expectStatus(await as(api, "skuAud").get(`/devices?batchId=${batch.id}`), 200);
    assertEquals([devices.total, devices.items.map((d: { id: string }) => d.id)], [1, [a.id]]);
    const stats = expectStatus(await as(api, "skuAud").get(`/batches/${batch.id}/stats`), 200);
    assertEquals(stats.counts, {
      registered: 1,
      credentialGenerated: 1,
      downloaded: 1,
      bound: 0,
      plannedQuantity: 10,
    });
    assertEquals(
      expectStatus(await as(api, "skuAud").get(`/stats?batchId=${batch.id}`), 200),
      stats,
    );
    const requests = expectStatus(
      await as(api, "skuAud").get(`/download-requests?batchId=${batch.id}`),
      200,
    );
    assertEquals(requests.items.map((r: { credentialId: string }) => r.credentialId), [credA.id]);

    const audit = expectStatus(
      await as(api, "skuAud").get(`/audit-logs?batchId=${batch.id}&limit=200`),
      200,
    );
    const text = JSON.stringify(audit.items);
    assert.ok(!text.includes(b.id) && !text.includes(credB.id) && !text.includes(b.hwId));
    assert.ok(audit.items.some((i: { deviceId: string }) => i.deviceId === a.id));
    const zips = audit.items.filter((i: { action: string }) =>
      i.action === "nfc_file.download_zip"
    );
    // The supervisor's ZIP covered SKU-B too; only the SKU-A one is shown.
    assertEquals(zips.map((i: { principalId: string }) => i.principalId), ["skuSup"]);
    assertEquals(audit.total, audit.items.length);
    assertEquals(
      expectStatus(await as(api, "skuAud").get(`/audit-logs?deviceId=${b.id}`), 200).total,
      0,
    );
    // The unrestricted reader sees both devices, and no audit row holds a secret of either.
    const full = JSON.stringify(
      expectStatus(await as(api, "sup").get(`/audit-logs?batchId=${batch.id}&limit=200`), 200),
    );
    assert.ok(full.includes(b.id));
    for (const secret of [...await secretsOf(a), ...await secretsOf(b)]) {
      assert.ok(!full.includes(secret));
    }
    assert.ok(ca.mqttPassword && cb.mqttPassword);

    // A device of SKU-A in a batch of SKU-B: its batch is out of scope, so it is too.
    const other = await createBatch(api, { sku: "SKU-B" });
    const c = expectStatus(
      await as(api, "sup").post("/devices", { body: { batchId: other.id, sku: "SKU-A" } }),
      201,
    );
    expectError(await as(api, "skuAud").get(`/devices/${c.id}`), 404);
    const listed = expectStatus(await as(api, "skuAud").get(`/devices?q=${c.hwId}`), 200);
    assertEquals(listed.total, 0);
    const global = expectStatus(await as(api, "skuAud").get("/stats"), 200);
    const visible = expectStatus(await as(api, "skuAud").get("/devices?limit=1"), 200).total;
    assertEquals(global.counts.registered, visible);
  },
);

suite.test("issue 16: registration checks the batch's SKU and the override both", async (api) => {
  const skuA = await createBatch(api, { sku: "SKU-A" });
  const skuB = await createBatch(api, { sku: "SKU-B" });
  // Overriding the SKU into one's own does not open another SKU's batch.
  expectError(
    await as(api, "skuSup").post("/devices", { body: { batchId: skuB.id, sku: "SKU-A" } }),
    403,
  );
  expectError(await as(api, "skuOp").post("/devices", { body: { batchId: skuB.id } }), 403);
  expectError(
    await as(api, "skuOp").post("/devices", { body: { batchId: skuA.id, sku: "SKU-B" } }),
    403,
  );
  expectStatus(
    await as(api, "skuOp").post("/devices", { body: { batchId: skuA.id, sku: "SKU-A" } }),
    201,
  );
  assertEquals(
    expectStatus(await as(api, "sup").get(`/devices?batchId=${skuB.id}`), 200).total,
    0,
  );
  const denied = expectStatus(
    await as(api, "sup").get(`/audit-logs?batchId=${skuB.id}&action=device.register`),
    200,
  );
  assertEquals(denied.items.map((i: { result: string }) => i.result), ["denied", "denied"]);

  // The CSV import: another SKU's batch is 403, a row overriding into another SKU a row error.
  const csv = (batchId: string, text: string) =>
    api.post(`/internal/factory/devices:batch-import?batchId=${batchId}`, {
      token: tokenOf("skuSup"),
      raw: csvForm(text),
    });
  expectError(await csv(skuB.id, "serial,sku\nX-1,SKU-A\n"), 403);
  const imported = expectStatus(
    await csv(skuA.id, "serial,sku\nX-1,SKU-B\nX-2,SKU-A\nX-3,\n"),
    200,
  );
  assertEquals([imported.ok, imported.idempotent], [2, 0]);
  assertEquals(imported.errors, [{
    row: 1,
    serial: "X-1",
    error: "sku SKU-B is outside your scope",
  }]);
  const skus = expectStatus(await as(api, "sup").get(`/devices?batchId=${skuA.id}&q=X-`), 200)
    .items.map((d: { sku: string }) => d.sku);
  assertEquals(skus, ["SKU-A", "SKU-A"]);
});

// ---- the MQTT password in the file (CONTRACT.md "MQTT topics") ----------------------------

suite.test(
  "the .nfc.json carries mqttPassword: the derivation, signed, never on the tag; reissue changes it",
  async (api, server) => {
    const { device, credential, file } = await provisionedDevice(api);
    assertEquals(file.mqttPassword, deviceMqttPassword(MQTT_DEVICE_KEY, device.thingName, 1));
    assert.ok(!file.nfcPayload.includes(file.mqttPassword));
    const keys = expectStatus(await as(api, "aud").get("/manifest-keys"), 200);
    const key = keys.find((k: { id: string }) => k.id === file.manifestKeyId);
    assertEquals(await verifyFile(key.publicKey, file), true);
    // The signature covers the password: a changed or removed one fails.
    assertEquals(await verifyFile(key.publicKey, { ...file, mqttPassword: "x" }), false);
    const { mqttPassword: _, ...without } = file;
    assertEquals(await verifyFile(key.publicKey, without), false);
    // Nowhere but the download: not in the device view, the lists or the audit log.
    for (
      const reply of await Promise.all([
        as(api, "sup").get(`/devices/${device.id}`),
        as(api, "sup").get(`/devices?q=${device.hwId}`),
        as(api, "sup").get(`/audit-logs?deviceId=${device.id}&limit=200`),
      ])
    ) assert.ok(!JSON.stringify(reply.body).includes(file.mqttPassword));

    const fresh = expectStatus(
      await as(api, "sup").post(`/devices/${device.id}/nfc-credentials:revoke-and-reissue`),
      200,
    );
    assert.notEqual(fresh.id, credential.id);
    const next = expectStatus(await as(api, "sup").get(`/nfc-files/${fresh.id}/download`), 200);
    assertEquals(next.mqttPassword, deviceMqttPassword(MQTT_DEVICE_KEY, device.thingName, 2));
    assert.notEqual(next.mqttPassword, file.mqttPassword);
    assertEquals(await verifyFile(key.publicKey, next), true);
    // The ZIP's files carry it too, signed the same way.
    const zip = await zipAs(server, "sup", { batchId: device.batchId });
    const zipped = Object.values(zip.files)[0];
    assertEquals(zipped.mqttPassword, next.mqttPassword);
    assertEquals(await verifyFile(key.publicKey, zipped), true);
  },
);

suite.test(
  "deno task factory: the station verifies each file, mqttPassword included, and keeps it off the tag",
  async (api, server) => {
    const out = await Deno.makeTempDir({ prefix: "dds-station-" });
    try {
      const order = orderNo("STATION");
      const run = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-net",
          "--allow-read",
          "--allow-write",
          fileURLToPath(new URL("../tools/factory_station.ts", import.meta.url)),
          "--token",
          tokenOf("sup"),
          "--url",
          server.factoryUrl,
          "--order",
          order,
          "--count",
          "2",
          "--out",
          out,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stdout = new TextDecoder().decode(run.stdout);
      assertEquals(run.code, 0, new TextDecoder().decode(run.stderr));
      assertEquals(stdout.match(/signature ok/g)?.length, 2);
      assert.match(stdout, /password mqttPassword \(not on the tag\)/);
      const keys = expectStatus(await as(api, "aud").get("/manifest-keys"), 200);
      for (const n of ["0001", "0002"]) {
        const path = `${out}/${order}-${n}.nfc.json`;
        const file = JSON.parse(await Deno.readTextFile(path));
        assertEquals(file.mqttPassword, deviceMqttPassword(MQTT_DEVICE_KEY, file.thingName, 1));
        // The tool prints where the password goes, never the password itself.
        assert.ok(!stdout.includes(file.mqttPassword));
        assertEquals((await Deno.stat(path)).mode! & 0o777, 0o600);
        assertEquals(await checkFile(file, keys), null);
        assertEquals(await checkFile({ ...file, mqttPassword: "x" }, keys), "bad signature");
        const { mqttPassword: _, ...without } = file;
        assertEquals(await checkFile(without, keys), "bad signature");
        assertEquals(
          await checkFile({ ...file, manifestKeyId: "mk-x" }, keys),
          "unknown manifest key mk-x",
        );
      }
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
);

suite.test(
  "deno task factory --batch-generate --zip: one generate call, ZIP pages verified, progress on stderr",
  async (api, server) => {
    const out = await Deno.makeTempDir({ prefix: "dds-station-zip-" });
    try {
      const order = orderNo("STZIP");
      const run = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-net",
          "--allow-read",
          "--allow-write",
          fileURLToPath(new URL("../tools/factory_station.ts", import.meta.url)),
          ...["--token", tokenOf("sup"), "--url", server.factoryUrl, "--order", order],
          ...["--count", "3", "--out", out, "--batch-generate", "--zip", "--zip-page", "2"],
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stdout = new TextDecoder().decode(run.stdout);
      const stderr = new TextDecoder().decode(run.stderr);
      assertEquals(run.code, 0, stderr);
      // A line per step with counts and, while steps remain, an ETA.
      assert.match(stderr, /^register {2}1\/3 \(33%\) {2}\S+ {2}ETA \S+ {2}STZIP/m);
      assert.match(stderr, /^register {2}3\/3 \(100%\)/m);
      assert.match(stderr, /^batch generate {2}3 credentials/m);
      assert.match(stderr, /^zip export {2}1\/2 \(50%\) .* files 1-2 of 3$/m);
      assert.match(stderr, /^zip export {2}2\/2 \(100%\) .* files 3-3 of 3$/m);
      assert.match(stdout, /exported 3 files from 2 ZIP\(s\)/);
      const keys = expectStatus(await as(api, "aud").get("/manifest-keys"), 200);
      for (const n of ["0001", "0002", "0003"]) {
        const file = JSON.parse(await Deno.readTextFile(`${out}/${order}-${n}.nfc.json`));
        assertEquals(await checkFile(file, keys), null);
        assert.ok(!stdout.includes(file.mqttPassword) && !stderr.includes(file.mqttPassword));
      }
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
);

// ---- hardening (D) -------------------------------------------------------------------------

suite.test("CSV import: over 50000 rows is 413 before any row lands; bad sku/hwRevision are row errors", async (api) => {
  const batch = await createBatch(api);
  const path = `/internal/factory/devices:batch-import?batchId=${batch.id}`;
  const sup = tokenOf("sup");
  const many = "serial\n" + Array.from({ length: 50_001 }, (_, i) => `R${i}`).join("\n") + "\n";
  expectError(await api.post(path, { token: sup, raw: csvForm(many) }), 413, /50000 rows/);
  assertEquals(
    expectStatus(await as(api, "aud").get(`/devices?batchId=${batch.id}`), 200).total,
    0,
  );
  const text = [
    "serial,sku,hwRevision",
    "T-1,SKU-A,r1",
    "T-2,bad\u0000sku,",
    `T-3,,${"r".repeat(101)}`,
    `T-4,${"s".repeat(100)},`,
  ].join("\n");
  const body = expectStatus(await api.post(path, { token: sup, raw: csvForm(text) }), 200);
  assertEquals(body.ok, 2);
  assertEquals(body.errors.map((e: { row: number }) => e.row), [2, 3]);
  assert.match(body.errors[0].error, /sku/);
  assert.match(body.errors[1].error, /hwRevision/);
});

suite.test("CSV import: an out-of-scope batch is 403 before the upload is read", async (api) => {
  const batch = await createBatch(api);
  const big = "serial\n" + "X".repeat(4 * 1024 * 1024);
  expectError(
    await api.post(`/internal/factory/devices:batch-import?batchId=${batch.id}`, {
      token: tokenOf("scopedSup"),
      raw: csvForm(big),
    }),
    403,
  );
});

suite.test(
  "ZIP: any order number gives a safe file name; offset and limit page the batch",
  async (api, server) => {
    const batch = await createBatch(api, {
      orderNo: `PO-\u4e2d\u6587-\r\n-${crypto.randomUUID()}`,
    });
    for (const serial of ["P-1", "P-2", "P-3"]) await registerDevice(api, batch.id, serial);
    await as(api, "sup").post("/devices:nfc-files-batch-generate", { body: { batchId: batch.id } });
    const zip = await zipAs(server, "sup", { batchId: batch.id });
    assertEquals(zip.status, 200);
    assert.match(
      zip.headers.get("content-disposition") ?? "",
      /^attachment; filename="PO-[\w.-]+\.nfc\.zip"$/,
    );
    const page = await zipAs(server, "sup", { batchId: batch.id, offset: 1, limit: 1 });
    assertEquals(Object.keys(page.files), ["P-2.nfc.json"]);
    for (
      const bad of [{ limit: 0 }, { limit: 10_001 }, { offset: -1 }, { limit: "2" }, {
        offset: 1.5,
      }]
    ) {
      assertEquals((await zipAs(server, "sup", { batchId: batch.id, ...bad })).status, 400);
    }
    assertEquals((await zipAs(server, "sup", { batchId: batch.id, offset: 3 })).status, 404);
    // Over the per-ZIP maximum (lowered here instead of building 10k devices): 413 without a
    // limit, the page with one.
    const downloads = server.app.services.factory.downloads;
    downloads.maxZipFiles = 2;
    try {
      const over = await zipAs(server, "sup", { batchId: batch.id });
      assertEquals(over.status, 413);
      assertEquals(
        Object.keys((await zipAs(server, "sup", { batchId: batch.id, limit: 2 })).files).length,
        2,
      );
      assertEquals((await zipAs(server, "sup", { batchId: batch.id, limit: 3 })).status, 400);
      assertEquals(
        Object.keys((await zipAs(server, "sup", { batchId: batch.id, offset: 1 })).files).length,
        2,
      );
    } finally {
      downloads.maxZipFiles = MAX_ZIP_FILES;
    }
  },
);

// ---- routing -----------------------------------------------------------------------------

suite.test("colon routes reach their own handler, not their {param} siblings", async (api) => {
  const sup = as(api, "sup");
  // Each colon path answers with its own validation error, proving which handler ran.
  expectError(await sup.post("/devices:batch-import"), 400, /batchId/);
  expectError(await sup.post("/devices:nfc-files-batch-generate", { body: {} }), 400, /batchId/);
  expectError(await sup.post("/nfc-files:download-zip", { body: {} }), 400, /batchId/);
  expectError(await sup.post(`/download-requests/${crypto.randomUUID()}:approve`), 404, /request/i);
  expectError(
    await sup.post(`/download-requests/${crypto.randomUUID()}:reject`, { body: { reason: "r" } }),
    404,
    /request/i,
  );
  expectError(
    await sup.post(`/devices/${crypto.randomUUID()}/nfc-credentials:revoke-and-reissue`),
    404,
    /Device/,
  );
  expectError(await sup.post("/download-requests/x:unknown"), 404);
  expectError(await sup.get("/devices:batch-import"), 405);
});

suite.end();

// ---- a separate ingress and the download rate limit -------------------------------------

const split = serverSuite(
  "factory ingress",
  factoryEnv({ FACTORY_PORT: "0", FACTORY_DOWNLOADS_PER_MINUTE: "2" }),
);

split.test(
  "with FACTORY_PORT the user port answers 404 for the console and the factory port serves it",
  async (api, server) => {
    assert.notEqual(server.factoryUrl, server.url);
    expectError(await api.get("/internal/factory/whoami", { token: tokenOf("sup") }), 404);
    expectError(
      await api.post("/internal/factory/batches", { token: tokenOf("sup"), body: {} }),
      404,
    );
    const factory = (await import("./helpers/http.ts")).client(server.factoryUrl);
    expectStatus(await as(factory, "sup").get("/whoami"), 200);
    expectError(await factory.get("/auth/me"), 404);
    expectStatus(await api.get("/health"), 200);
  },
);

split.test(
  "downloads over the per-principal limit get 429 with Retry-After",
  async (_api, server) => {
    const factory = (await import("./helpers/http.ts")).client(server.factoryUrl);
    const batch = await createBatch(factory);
    const device = await registerDevice(factory, batch.id);
    const c = (await as(factory, "sup").post(`/devices/${device.id}/nfc-files`)).body;
    expectStatus(await as(factory, "sup").get(`/nfc-files/${c.id}/download`), 200);
    expectStatus(await as(factory, "sup").get(`/nfc-files/${c.id}/download`), 200);
    const limited = await as(factory, "sup").get(`/nfc-files/${c.id}/download`);
    expectError(limited, 429);
    const retry = Number(limited.headers.get("retry-after"));
    assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
    expectError(
      await as(factory, "sup").post("/nfc-files:download-zip", { body: { batchId: batch.id } }),
      429,
    );
    // The limit is per principal.
    expectError(await as(factory, "op").get(`/nfc-files/${c.id}/download`), 403);
  },
);

split.test(
  "refusals of unknown bearers are audited up to a per-minute cap, so no one can fill the log",
  async (_api, server) => {
    const factory = (await import("./helpers/http.ts")).client(server.factoryUrl);
    const tries = ANONYMOUS_AUDIT_PER_MINUTE + 15;
    for (let i = 0; i < tries; i++) {
      expectError(
        await factory.get("/internal/factory/whoami", { token: `guess-${i}-abcdefgh` }),
        401,
      );
    }
    const rows = expectStatus(
      await as(factory, "sup").get("/audit-logs?action=whoami&limit=200"),
      200,
    ).items.filter((i: { principalId: string | null }) => i.principalId === null);
    assertEquals(rows.length, ANONYMOUS_AUDIT_PER_MINUTE);
  },
);

split.end();

// ---- concurrency (meaningful on real PostgreSQL) -------------------------------------------

// Downloads race one another here: the per-minute limit is not what these tests are about.
const race = serverSuite("factory races", factoryEnv({ FACTORY_DOWNLOADS_PER_MINUTE: "1000" }));

race.test("concurrent registrations with one Idempotency-Key create one device", async (api) => {
  const batch = await createBatch(api);
  for (const serial of ["RACE-1", undefined]) {
    const headers = { "idempotency-key": `race-${crypto.randomUUID()}` };
    const body = { batchId: batch.id, ...(serial ? { serial } : {}) };
    const replies = await Promise.all(
      [0, 1, 2, 3].map(() => as(api, "op").post("/devices", { body, headers })),
    );
    assertEquals(replies.map((r) => r.status).sort(), [200, 200, 200, 201]);
    assertEquals(new Set(replies.map((r) => r.body.id)).size, 1);
  }
  assertEquals(
    expectStatus(await as(api, "aud").get(`/devices?batchId=${batch.id}`), 200).total,
    2,
  );
});

race.test("concurrent download requests: exactly one pending; one approval serves one download", async (api) => {
  const { credential: c } = await provisionedDevice(api);
  const replies = await Promise.all(
    [0, 1, 2].map(() => as(api, "op").post(`/nfc-files/${c.id}/download-requests`)),
  );
  assertEquals(replies.map((r) => r.status).sort(), [201, 409, 409]);
  const request = replies.find((r) => r.status === 201)!.body;
  expectStatus(await as(api, "sup").post(`/download-requests/${request.id}:approve`), 200);
  const downloads = await Promise.all(
    [0, 1, 2].map(() => as(api, "op").get(`/nfc-files/${c.id}/download`)),
  );
  assertEquals(downloads.map((r) => r.status).sort(), [200, 403, 403]);
});

race.test("concurrent first generation of one device issues one credential", async (api) => {
  const device = await registerDevice(api, (await createBatch(api)).id);
  const replies = await Promise.all(
    [0, 1, 2].map(() => as(api, "op").post(`/devices/${device.id}/nfc-files`)),
  );
  assertEquals(replies.map((r) => r.status).sort(), [201, 409, 409]);
});

race.test("downloads, ZIPs and revoke-and-reissue of one device at once never deadlock", async (api) => {
  const batch = await createBatch(api);
  const devices = await Promise.all([0, 1, 2].map(() => registerDevice(api, batch.id)));
  await as(api, "sup").post("/devices:nfc-files-batch-generate", { body: { batchId: batch.id } });
  for (let round = 0; round < 4; round++) {
    const views = await Promise.all(devices.map((d) => as(api, "sup").get(`/devices/${d.id}`)));
    const credentials = views.map((v) => v.body.credential.id);
    const replies = await Promise.all([
      ...credentials.map((c) => as(api, "sup").get(`/nfc-files/${c}/download`)),
      ...devices.map((d) =>
        as(api, "sup").post(`/devices/${d.id}/nfc-credentials:revoke-and-reissue`)
      ),
      as(api, "sup").post("/nfc-files:download-zip", { body: { batchId: batch.id } }),
      ...credentials.map((c) => as(api, "sup").get(`/nfc-files/${c}/download`)),
    ]);
    // A download that lost the race to the revocation is 404; nothing is a 500.
    for (const r of replies) {
      assert.ok([200, 404].includes(r.status), `${r.status} ${JSON.stringify(r.body)}`);
    }
  }
});

race.end();
