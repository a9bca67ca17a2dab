import assert from "node:assert/strict";
import { findPrincipal, inScope, type Principal } from "./principals.ts";

const base = { name: "", stationId: null, factoryId: null } as const;
const all: Principal = {
  ...base,
  id: "a",
  token: "token-a-0123456789",
  role: "operator",
  batches: ["*"],
  skus: ["*"],
};
const none: Principal = { ...all, id: "n", token: "token-n-0123456789", batches: [], skus: [] };
const some: Principal = {
  ...all,
  id: "s",
  token: "token-s-0123456789",
  batches: ["PO-1", "0199f000-0000-7000-8000-000000000001"],
  skus: ["SKU-A"],
};

Deno.test("principals: the token must match exactly", () => {
  assert.equal(findPrincipal([all, none], "token-n-0123456789")?.id, "n");
  assert.equal(findPrincipal([all, none], "token-n-012345678"), null);
  assert.equal(findPrincipal([all], ""), null);
  assert.equal(findPrincipal([], "token-a-0123456789"), null);
});

Deno.test("principals: scope by batch id or order number, and by SKU; [] is nothing", () => {
  const batch = { id: "0199f000-0000-7000-8000-000000000009", orderNo: "PO-1" };
  assert.equal(inScope(all, batch, "X"), true);
  assert.equal(inScope(none, batch, "X"), false);
  assert.equal(inScope(some, batch, "SKU-A"), true);
  assert.equal(inScope(some, batch, "SKU-B"), false);
  assert.equal(inScope(some, { ...batch, orderNo: "PO-2" }, "SKU-A"), false);
  assert.equal(
    inScope(some, { id: "0199f000-0000-7000-8000-000000000001", orderNo: "PO-9" }, "SKU-A"),
    true,
  );
});
