import assert from "node:assert/strict";
import { FixedWindowLimiter } from "./rate_limit.ts";

Deno.test("rate limit: N hits per window per key, then the seconds to wait", () => {
  const limiter = new FixedWindowLimiter(2, 60_000);
  assert.equal(limiter.hit("a", 0), null);
  assert.equal(limiter.hit("a", 1000), null);
  assert.equal(limiter.hit("a", 1500), 59);
  assert.equal(limiter.hit("b", 1500), null);
  assert.equal(limiter.hit("a", 60_000), null);
});
