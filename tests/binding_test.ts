/**
 * SPEC 4.5 bind/nfc, 3.6, 9.4-9.5: binding a factory-registered device by its NFC credential.
 * Every credential fault is the same 400; two users binding one device at once: exactly one wins.
 */
import { sql } from "kysely";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import {
  as,
  bindRequestOf,
  createBatch,
  factoryEnv,
  MASTER_KEY,
  OLD_KEY,
  provisionedDevice,
  tokenOf,
} from "./helpers/factory.ts";
import { computeProof } from "../src/domains/factory/nfc_crypto.ts";

const suite = serverSuite("binding", factoryEnv());

async function bindable(api: Client) {
  const provisioned = await provisionedDevice(api);
  return { ...provisioned, request: bindRequestOf(provisioned.file.nfcPayload) };
}

const bind = (api: Client, token: string, body: unknown) =>
  api.post("/api/devices/bind/nfc", { token, body });

suite.test(
  "a fresh bind answers 200 bound: owner set, boundAt set, claim code cleared",
  async (api, server) => {
    const user = await registerUser(api);
    const { device, request } = await bindable(api);
    const before = await sql<
      { claim_code: string | null }
    >`SELECT claim_code FROM devices WHERE id = ${device.id}`
      .execute(server.app.services.db);
    assert.match(before.rows[0].claim_code ?? "", /^[A-Z0-9]{6}$/);
    const body = expectStatus(await bind(api, user.accessToken, request), 200);
    assertEquals(body.status, "bound");
    assertEquals([body.device.id, body.device.hwId, body.device.ownerId], [
      device.id,
      device.hwId,
      user.user.id,
    ]);
    assert.ok(Date.parse(body.device.boundAt) > 0);
    assertEquals(body.device.claimCode, null);
    assertEquals(body.device.tags, ["undeclared"]);
    const again = expectStatus(await bind(api, user.accessToken, request), 200);
    assertEquals([again.status, again.device.ownerId, again.device.boundAt], [
      "already_bound",
      user.user.id,
      body.device.boundAt,
    ]);
    // The factory sees the device as bound.
    const view = expectStatus(await as(api, "aud").get(`/devices/${device.id}`), 200);
    assertEquals(view.bound, true);
  },
);

suite.test("a device bound to another user is 409", async (api) => {
  const [a, b] = [await registerUser(api), await registerUser(api)];
  const { request } = await bindable(api);
  expectStatus(await bind(api, a.accessToken, request), 200);
  expectError(await bind(api, b.accessToken, request), 409);
});

suite.test("every credential fault is the same 400", async (api) => {
  const user = await registerUser(api);
  const { request } = await bindable(api);
  const flip = request.proof[0] === "A" ? "B" : "A";
  const faults: unknown[] = [
    { ...request, proof: flip + request.proof.slice(1) },
    { ...request, proof: request.proof.slice(0, 20) },
    { ...request, proof: 12345 },
    { ...request, version: 1 },
    { ...request, version: "2" },
    { ...request, keyId: "nope" },
    { ...request, keyId: "old" }, // a real key that did not issue this credential
    { ...request, keyId: "__proto__" },
    { ...request, credentialVersion: 2 },
    { ...request, credentialVersion: 0 },
    { ...request, hwId: request.hwId.toUpperCase() },
    { ...request, hwId: "not-hex" },
    { version: 2 },
    {},
  ];
  const bodies = new Set<string>();
  for (const fault of faults) {
    const reply = await bind(api, user.accessToken, fault);
    expectError(reply, 400);
    bodies.add(JSON.stringify(reply.body));
  }
  assertEquals([...bodies], ['{"error":"Invalid NFC credential"}']);
  expectError(
    await api.post("/api/devices/bind/nfc", {
      token: user.accessToken,
      raw: "{oops",
      headers: { "content-type": "application/json" },
    }),
    400,
  );
});

suite.test("a valid proof for a device the factory never registered is 404", async (api) => {
  const user = await registerUser(api);
  const hwId = "feedfacefeedfacefeedfacefeedface";
  const proof = await computeProof(MASTER_KEY, hwId, 1);
  expectError(
    await bind(api, user.accessToken, {
      version: 2,
      keyId: "k2",
      hwId,
      credentialVersion: 1,
      proof,
    }),
    404,
  );
  // Older master keys still verify (the 404 shows the proof itself was accepted).
  const old = await computeProof(OLD_KEY, hwId, 1);
  expectError(
    await bind(api, user.accessToken, {
      version: 2,
      keyId: "old",
      hwId,
      credentialVersion: 1,
      proof: old,
    }),
    404,
  );
});

suite.test("after revoke-and-reissue the old credential is refused and the new one binds", async (api) => {
  const user = await registerUser(api);
  const { device, request } = await bindable(api);
  const fresh = expectStatus(
    await as(api, "sup").post(`/devices/${device.id}/nfc-credentials:revoke-and-reissue`),
    200,
  );
  expectError(await bind(api, user.accessToken, request), 400, /Invalid NFC credential/);
  const file = expectStatus(await as(api, "sup").get(`/nfc-files/${fresh.id}/download`), 200);
  const next = bindRequestOf(file.nfcPayload);
  assertEquals(next.credentialVersion, 2);
  assertEquals(expectStatus(await bind(api, user.accessToken, next), 200).status, "bound");
  // A device already bound with v2 still refuses the old v1 credential, even to its owner.
  expectError(await bind(api, user.accessToken, request), 400);
});

suite.test("a device with no credential yet cannot be bound", async (api) => {
  const user = await registerUser(api);
  const batch = await createBatch(api);
  const device = expectStatus(
    await as(api, "sup").post("/devices", { body: { batchId: batch.id } }),
    201,
  );
  const proof = await computeProof(MASTER_KEY, device.hwId, 1);
  expectError(
    await bind(api, user.accessToken, {
      version: 2,
      keyId: "k2",
      hwId: device.hwId,
      credentialVersion: 1,
      proof,
    }),
    400,
  );
});

suite.test("bind takes a user token or a PAT: 401 without, with a factory token or a revoked PAT", async (api) => {
  const { request } = await bindable(api);
  expectError(await api.post("/api/devices/bind/nfc", { body: request }), 401);
  expectError(await bind(api, tokenOf("sup"), request), 401);
  expectError(await bind(api, "garbage.token.here", request), 401);
  const user = await registerUser(api);
  const pat = expectStatus(
    await api.post("/api/personal-access-tokens", { token: user.accessToken, body: { name: "p" } }),
    201,
  );
  const revoked = expectStatus(
    await api.post("/api/personal-access-tokens", { token: user.accessToken, body: { name: "r" } }),
    201,
  );
  expectStatus(
    await api.delete(`/api/personal-access-tokens/${revoked.id}`, { token: user.accessToken }),
    204,
  );
  expectError(await bind(api, revoked.token, request), 401);
  // CONTRACT.md: a PAT acts as its user on `/api/*`, binding included, with the same rules.
  const bound = expectStatus(await bind(api, pat.token, request), 200);
  assertEquals([bound.status, bound.device.ownerId], ["bound", user.user.id]);
  assertEquals(expectStatus(await bind(api, pat.token, request), 200).status, "already_bound");
  const other = await registerUser(api);
  const otherPat = expectStatus(
    await api.post("/api/personal-access-tokens", {
      token: other.accessToken,
      body: { name: "p" },
    }),
    201,
  );
  expectError(await bind(api, otherPat.token, request), 409);
});

suite.test("retired claim-code endpoints answer 410 always", async (api) => {
  const user = await registerUser(api);
  for (const token of [undefined, user.accessToken]) {
    expectError(await api.post("/api/devices/bind/code", { token, body: { code: "ABC123" } }), 410);
    expectError(await api.post("/api/devices/bind/code", { token }), 410);
    expectError(await api.post(`/api/devices/${crypto.randomUUID()}/refresh-code`, { token }), 410);
    expectError(await api.post("/api/devices/whatever/refresh-code", { token }), 410);
  }
});

suite.test("two users binding one device at the same moment: exactly one wins", async (api) => {
  for (let round = 0; round < 4; round++) {
    const users = await Promise.all([registerUser(api), registerUser(api), registerUser(api)]);
    const { request, device } = await bindable(api);
    const replies = await Promise.all(users.map((u) => bind(api, u.accessToken, request)));
    const statuses = replies.map((r) => r.status).sort();
    assertEquals(statuses, [200, 409, 409], `round ${round}`);
    const winner = replies.findIndex((r) => r.status === 200);
    assertEquals(replies[winner].body.status, "bound");
    const view = expectStatus(await as(api, "aud").get(`/devices/${device.id}`), 200);
    assertEquals(view.bound, true);
    // The winner's repeat is idempotent; the losers stay refused.
    assertEquals(
      expectStatus(await bind(api, users[winner].accessToken, request), 200).status,
      "already_bound",
    );
  }
});

suite.test("factory statistics count bound devices", async (api) => {
  const user = await registerUser(api);
  const { batchId, request } = await bindable(api);
  expectStatus(await bind(api, user.accessToken, request), 200);
  const stats = expectStatus(await as(api, "aud").get(`/batches/${batchId}/stats`), 200);
  assertEquals(stats.counts.bound, 1);
  assertEquals(
    expectStatus(await as(api, "aud").get(`/devices?batchId=${batchId}&bound=true`), 200).total,
    1,
  );
});

suite.end();
