import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { isStorableJson, MAX_STATE_DEPTH, parsePayload } from "./report_payload.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("report payloads: JSON, bare words, empty and binary never throw", () => {
  assertEquals(parsePayload(bytes('{"a":1}')), { a: 1 });
  assertEquals(parsePayload(bytes(" online ")), "online");
  assertEquals(parsePayload(bytes('{"a":')), '{"a":');
  assertEquals(parsePayload(new Uint8Array()), undefined);
  assertEquals(typeof parsePayload(new Uint8Array([0xff, 0xfe, 0x00, 0x80])), "string");
});

Deno.test("report payloads: what jsonb cannot store is refused before the database", () => {
  assert.ok(isStorableJson({ screen: "on", nested: { list: [1, "two", null, true] } }));
  assert.ok(!isStorableJson({ text: "a\u0000b" }));
  assert.ok(!isStorableJson({ ["k\u0000"]: 1 }));
  assert.ok(!isStorableJson({ text: "\ud800" }));
  assert.ok(isStorableJson({ text: "\ud83d\ude00" }));
  const deep = (n: number) => JSON.parse("[".repeat(n) + "]".repeat(n));
  assert.ok(isStorableJson(deep(MAX_STATE_DEPTH)));
  assert.ok(!isStorableJson(deep(MAX_STATE_DEPTH + 1)));
  // 100,000 levels: refused without a stack overflow.
  assert.ok(!isStorableJson(deep(100_000)));
});
