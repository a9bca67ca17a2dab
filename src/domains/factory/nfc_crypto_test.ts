import assert from "node:assert/strict";
import { encodeBase64 } from "@oslojs/encoding";
import { canonicalJson } from "../../infra/lib/canonical_json.ts";
import {
  bindUri,
  computeProof,
  deriveDeviceKey,
  maskedBindUri,
  signFile,
  verifyFile,
  verifyProof,
} from "./nfc_crypto.ts";

const master = new Uint8Array(32).map((_, i) => i);
const hwId = "0123456789abcdef0123456789abcdef";

Deno.test("nfc: the device key is HKDF-SHA256 with the hwId as salt and the contract's info", async () => {
  const key = await deriveDeviceKey(master, hwId);
  assert.equal(key.byteLength, 32);
  // Independent re-derivation through Web Crypto with the documented parameters.
  const ikm = await crypto.subtle.importKey("raw", master.slice(), "HKDF", false, ["deriveBits"]);
  const bits = new Uint8Array(
    await crypto.subtle.deriveBits(
      {
        name: "HKDF",
        hash: "SHA-256",
        salt: new TextEncoder().encode(hwId),
        info: new TextEncoder().encode("dds-nfc-bind-v2"),
      },
      ikm,
      256,
    ),
  );
  assert.deepEqual(key, bits);
  assert.notDeepEqual(await deriveDeviceKey(master, hwId.replace("0", "1")), key);
});

Deno.test("nfc: the proof is 16 bytes base64url, bound to hwId and credentialVersion", async () => {
  const proof = await computeProof(master, hwId, 1);
  assert.match(proof, /^[A-Za-z0-9_-]{22}$/);
  assert.equal(await verifyProof(master, hwId, 1, proof), true);
  assert.equal(await verifyProof(master, hwId, 2, proof), false);
  assert.equal(await verifyProof(master, hwId.replace("a", "b"), 1, proof), false);
  assert.equal(await verifyProof(new Uint8Array(32), hwId, 1, proof), false);
  assert.equal(await verifyProof(master, hwId, 1, proof.slice(0, 21)), false);
  assert.equal(await verifyProof(master, hwId, 1, `${proof}==`), false);
  assert.equal(await verifyProof(master, hwId, 1, "!!!!!!!!!!!!!!!!!!!!!!"), false);
});

Deno.test("nfc: bind URI shape and the masked preview", () => {
  const p = { keyId: "k1", hwId, credentialVersion: 3, proof: "abc" };
  assert.equal(bindUri("dds", p), `dds://bind?v=2&kid=k1&hw=${hwId}&cv=3&p=abc`);
  assert.equal(maskedBindUri("x", p), `x://bind?v=2&kid=k1&hw=${hwId}&cv=3&p=****`);
});

Deno.test("nfc: canonical JSON sorts keys at every level and has no spaces", () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [2, { z: 1, y: "é" }], c: null }, u: undefined }),
    '{"a":{"c":null,"d":[2,{"y":"é","z":1}]},"b":1}',
  );
});

Deno.test("nfc: Ed25519 file signatures verify and detect tampering", async () => {
  const pair = await crypto.subtle.generateKey("Ed25519", true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const publicKey = encodeBase64(
    new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey)),
  );
  const file: Record<string, unknown> = { schemaVersion: 1, serial: "S1", credentialVersion: 1 };
  file.manifestSignature = await signFile(pair.privateKey, file);
  assert.equal(await verifyFile(publicKey, file), true);
  // Key order of the JSON does not matter: the signature covers the canonical form.
  assert.equal(
    await verifyFile(publicKey, JSON.parse(JSON.stringify({ serial: "S1", ...file }))),
    true,
  );
  assert.equal(await verifyFile(publicKey, { ...file, serial: "S2" }), false);
});
