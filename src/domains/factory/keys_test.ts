import assert from "node:assert/strict";
import { encodeBase64 } from "@oslojs/encoding";
import { parseConfig } from "../../config.ts";
import { loadSecrets } from "../../secrets.ts";
import { importManifestPrivateKey, nfcKeyringOf } from "./keys.ts";
import { signFile, verifyFile } from "./nfc_crypto.ts";

const key = (n: number) => encodeBase64(new Uint8Array(32).fill(n));

Deno.test("keys: the active key defaults to the first and must exist; keys are 32 bytes", () => {
  assert.equal(nfcKeyringOf({ a: key(1), b: key(2) }).activeKeyId, "a");
  assert.equal(nfcKeyringOf({ a: key(1), b: key(2) }, "b").activeKeyId, "b");
  assert.throws(() => nfcKeyringOf({ a: key(1) }, "c"), /NFC_ACTIVE_KEY_ID/);
  assert.throws(() => nfcKeyringOf({ a: encodeBase64(new Uint8Array(16)) }), /NFC_MASTER_KEYS/);
  assert.throws(() => nfcKeyringOf({}), /NFC_MASTER_KEYS/);
});

Deno.test("keys: generated NFC and manifest keys are kept across restarts", async () => {
  const dir = await Deno.makeTempDir({ prefix: "dds-keys-" });
  try {
    const config = parseConfig({ DATA_DIR: dir, JWT_SECRET: "x".repeat(40) });
    const first = await loadSecrets(config);
    assert.deepEqual(first.generated.sort(), [
      "MQTT_DEVICE_KEY",
      "NFC_MASTER_KEYS",
      "manifest signing key",
    ]);
    const second = await loadSecrets(config);
    assert.deepEqual(second.generated, []);
    assert.deepEqual(second.nfc, first.nfc);
    assert.deepEqual(second.manifestKeys, first.manifestKeys);
    // A file signed before the restart verifies with the key published after it.
    const file: Record<string, unknown> = { serial: "S" };
    file.manifestSignature = await signFile(
      await importManifestPrivateKey(first.manifestKeys[0]),
      file,
    );
    assert.equal(await verifyFile(second.manifestKeys[0].publicKey, file), true);
    // Configured master keys win over the generated one.
    const configured = await loadSecrets(
      parseConfig({
        DATA_DIR: dir,
        JWT_SECRET: "x".repeat(40),
        NFC_MASTER_KEYS: JSON.stringify({ prod: key(9) }),
      }),
    );
    assert.deepEqual(Object.keys(configured.nfc.keys), ["prod"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
