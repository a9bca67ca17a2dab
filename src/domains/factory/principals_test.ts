import assert from "node:assert/strict";
import { findPrincipal, type Principal } from "./principals.ts";

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

Deno.test("principals: the token must match exactly", () => {
  assert.equal(findPrincipal([all, none], "token-n-0123456789")?.id, "n");
  assert.equal(findPrincipal([all, none], "token-n-012345678"), null);
  assert.equal(findPrincipal([all], ""), null);
  assert.equal(findPrincipal([], "token-a-0123456789"), null);
});
