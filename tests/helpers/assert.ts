/** Assertions for the tests (no std library here: jsr is unreachable). */
import assert from "node:assert/strict";
import type { Reply } from "./http.ts";

export { assert };
/** Deep strict equality. */
export function assertEquals<T>(
  actual: unknown,
  expected: T,
  message?: string,
): asserts actual is T {
  // Two calls: with mqtt/aedes in the graph, @types/node 26 types `message` as overloads.
  if (message === undefined) assert.deepStrictEqual(actual, expected);
  else assert.deepStrictEqual(actual, expected, message);
}

/** Asserts status, then content type (JSON when there is a body), then returns the body. */
export function expectStatus<T>(reply: Reply<T>, status: number): T {
  assert.equal(
    reply.status,
    status,
    `expected ${status}, got ${reply.status}: ${JSON.stringify(reply.body)}`,
  );
  if (reply.body !== null && status !== 204) {
    assert.match(reply.contentType ?? "", /json/);
  }
  return reply.body;
}

/** Asserts a main-API error: status and `{"error": string}`. */
export function expectError(reply: Reply, status: number, message?: RegExp) {
  const body = expectStatus(reply, status) as { error: unknown };
  assert.equal(typeof body.error, "string", `error body: ${JSON.stringify(body)}`);
  assert.deepEqual(Object.keys(body), ["error"]);
  if (message) assert.match(body.error as string, message);
}
