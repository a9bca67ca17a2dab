import { encode as encodePng } from "fast-png";
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { inspectImage, measure } from "./inspect.ts";

function png(width: number, height: number, fill: (x: number, y: number) => number) {
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = fill(x, y);
  return encodePng({ width, height, data, channels: 1, depth: 8 });
}

Deno.test("inspect: measures upright size, tone and detail, and downsizes to a grey JPEG", async () => {
  const dark = png(2000, 1000, (x) => (x > 1400 && x < 1600 ? 255 : 30));
  const result = await inspectImage(dark);
  assert.ok(result.ok);
  const { facts, preview } = result;
  assertEquals([facts.width, facts.height, facts.orientation], [2000, 1000, "landscape"]);
  assert.ok(facts.brightness < 35, `brightness ${facts.brightness}`);
  assertEquals(facts.detail === "evenly", false);
  assertEquals([preview[0], preview[1]], [0xff, 0xd8]);
  const small = await inspectImage(png(50, 80, () => 200));
  assert.ok(small.ok);
  assertEquals([small.facts.orientation, small.facts.detail], ["portrait", "evenly"]);
});

Deno.test("inspect: refuses what no render decodes", async () => {
  const junk = new TextEncoder().encode("just some text, no picture");
  const result = await inspectImage(junk);
  assertEquals(result.ok, false);
  const flat = measure(new Uint8Array(100).fill(0), 10, 10);
  assertEquals([flat.layout, flat.brightness, flat.edgeDensity], ["graphic", 0, 0]);
});
