import assert from "node:assert/strict";
import { batchInScope, deviceInScope, type Scope } from "./scope.ts";

const all: Scope = { batches: ["*"], skus: ["*"] };
const none: Scope = { batches: [], skus: [] };
const some: Scope = { batches: ["PO-1", "0199f000-0000-7000-8000-000000000001"], skus: ["SKU-A"] };
const batch = { id: "0199f000-0000-7000-8000-000000000009", orderNo: "PO-1", sku: "SKU-A" };

Deno.test("scope: a batch by id or order number, and by its SKU; [] is nothing", () => {
  assert.equal(batchInScope(all, { ...batch, sku: "X" }), true);
  assert.equal(batchInScope(none, batch), false);
  assert.equal(batchInScope(some, batch), true);
  assert.equal(batchInScope(some, { ...batch, sku: "SKU-B" }), false);
  assert.equal(batchInScope(some, { ...batch, orderNo: "PO-2" }), false);
  assert.equal(
    batchInScope(some, {
      id: "0199f000-0000-7000-8000-000000000001",
      orderNo: "PO-9",
      sku: "SKU-A",
    }),
    true,
  );
});

Deno.test("scope: a batch id entry matches in any letter case, as the uuid column does", () => {
  const upper = { batches: ["0199F000-0000-7000-8000-00000000000A"], skus: ["*"] };
  const id = "0199f000-0000-7000-8000-00000000000a";
  assert.equal(batchInScope(upper, { id, orderNo: "PO-X", sku: "S" }), true);
  assert.equal(batchInScope(upper, { id: id.replace("a", "b"), orderNo: "PO-X", sku: "S" }), false);
});

Deno.test("scope: a device needs its batch and its own SKU in scope (issue 16)", () => {
  assert.equal(deviceInScope(some, batch, "SKU-A"), true);
  // Another SKU's device in a batch of the principal's SKU.
  assert.equal(deviceInScope(some, batch, "SKU-B"), false);
  // The principal's SKU in another SKU's batch.
  assert.equal(deviceInScope(some, { ...batch, sku: "SKU-B" }, "SKU-A"), false);
  assert.equal(deviceInScope(some, batch, null), false);
  assert.equal(deviceInScope({ batches: ["PO-1"], skus: ["*"] }, batch, null), true);
  assert.equal(deviceInScope(all, batch, "anything"), true);
  assert.equal(deviceInScope(none, batch, "SKU-A"), false);
});
