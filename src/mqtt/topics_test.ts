import assert from "node:assert/strict";
import { parseTopic, THING_NAME, topicOf } from "./topics.ts";

Deno.test("topicOf and parseTopic round-trip a device topic", () => {
  const topic = topicOf("thing-1", "up/state");
  assert.equal(topic, "devices/thing-1/up/state");
  assert.deepEqual(parseTopic(topic), { thingName: "thing-1", channel: "up/state" });
  assert.equal(parseTopic("other/thing/up/state"), null);
  assert.equal(parseTopic("devices/thing"), null);
});

Deno.test("thing names exclude MQTT wildcards and separators", () => {
  assert.ok(THING_NAME.test("dds-0001_A.b:c"));
  for (const bad of ["", "a/b", "a+b", "a#", " x", "-x"]) assert.ok(!THING_NAME.test(bad), bad);
});
