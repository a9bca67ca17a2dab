import assert from "node:assert/strict";
import { allows, mayRun, type Operation, OPERATIONS } from "./access.ts";
import type { Principal } from "./principals.ts";

const principal = (role: Principal["role"], skus = ["*"]): Principal => ({
  id: role,
  name: role,
  token: `${role}-token-0123456789`,
  role,
  stationId: null,
  factoryId: null,
  batches: ["*"],
  skus,
});

Deno.test("access: the role table of SPEC 4.8, and nothing for an unknown operation", () => {
  const sup = principal("supervisor");
  const op = principal("operator");
  const aud = principal("auditor");
  for (const name of Object.keys(OPERATIONS) as Operation[]) assert.equal(mayRun(sup, name), true);
  assert.equal(mayRun(op, "registerDevice"), true);
  assert.equal(mayRun(op, "downloadNfcFile"), true);
  for (
    const name of [
      "createBatch",
      "importDevices",
      "generateBatchNfcFiles",
      "revokeAndReissue",
      "downloadZip",
      "approveDownloadRequest",
      "rejectDownloadRequest",
    ] as const
  ) assert.equal(mayRun(op, name), false, name);
  assert.equal(mayRun(aud, "listDevices"), true);
  assert.equal(mayRun(aud, "generateNfcFile"), false);
  // Deny by default: an operation the table does not name runs for nobody.
  assert.equal(mayRun(sup, "dropEverything" as Operation), false);
});

Deno.test("access: a device target needs its own SKU in scope, a batch target its batch's", () => {
  const p = principal("supervisor", ["SKU-A"]);
  const batch = { id: "0199f000-0000-7000-8000-000000000009", orderNo: "PO-1", sku: "SKU-A" };
  assert.equal(allows(p, { batch }), true);
  assert.equal(allows(p, { batch, device: { sku: "SKU-A" } }), true);
  assert.equal(allows(p, { batch, device: { sku: "SKU-B" } }), false);
  assert.equal(allows(p, { batch: { ...batch, sku: "SKU-B" }, device: { sku: "SKU-A" } }), false);
});
