import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { isOwnFilter, ownUpChannel, parseTopic, THING_NAME, topicOf } from "./topics.ts";

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

Deno.test("a device's own up channels are exactly the table's, under its own thing name", () => {
  assertEquals(ownUpChannel("t1", "devices/t1/up/state"), "up/state");
  assertEquals(ownUpChannel("t1", "devices/t1/up/status"), "up/status");
  for (
    const topic of [
      "devices/t2/up/state",
      "devices/t1/up/state/x",
      "devices/t1/up/other",
      "devices/t1/down/cmd",
      "devices/t10/up/state",
      "devices/t1",
      "$SYS/x",
    ]
  ) {
    assertEquals(ownUpChannel("t1", topic), null, topic);
  }
  assert.ok(isOwnFilter("t1", "devices/t1/down/#"));
  for (const filter of ["#", "devices/+/down/#", "devices/t10/#", "$share/g/devices/t1/#"]) {
    assert.ok(!isOwnFilter("t1", filter), filter);
  }
});
