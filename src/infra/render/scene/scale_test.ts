import { assertEquals } from "../../../../tests/helpers/assert.ts";
import { planScale } from "./scale.ts";

const VIEW = { width: 800, height: 480 };

Deno.test("scale: the same aspect ratio (integer cross-multiplication) scales uniformly", () => {
  assertEquals(planScale(VIEW, { width: 1600, height: 960 }), {
    rule: "uniform",
    content: { x: 0, y: 0, width: 1600, height: 960 },
    scaleX: 2,
    scaleY: 2,
  });
  assertEquals(planScale(VIEW, { width: 5, height: 3 }).rule, "uniform");
  // One pixel off is another aspect ratio: letterboxed, not stretched.
  assertEquals(planScale(VIEW, { width: 801, height: 481 }).rule, "letterbox");
});

Deno.test("scale: another aspect ratio is scaled by min(sx, sy) and centred", () => {
  assertEquals(planScale(VIEW, { width: 600, height: 600 }), {
    rule: "letterbox",
    content: { x: 0, y: 120, width: 600, height: 360 },
    scaleX: 0.75,
    scaleY: 0.75,
  });
  assertEquals(planScale(VIEW, { width: 1000, height: 480 }).content, {
    x: 100,
    y: 0,
    width: 800,
    height: 480,
  });
  // The free side is rounded to whole pixels and centred (an odd gap puts the extra pixel last).
  assertEquals(planScale({ width: 3, height: 1 }, { width: 10, height: 10 }).content, {
    x: 0,
    y: 3,
    width: 10,
    height: 3,
  });
  assertEquals(planScale({ width: 8192, height: 1 }, { width: 10, height: 10 }).content.height, 1);
});

Deno.test("scale: hardcode stretches anisotropically to fill the output exactly", () => {
  assertEquals(planScale(VIEW, { width: 600, height: 600 }, "hardcode"), {
    rule: "stretch",
    content: { x: 0, y: 0, width: 600, height: 600 },
    scaleX: 0.75,
    scaleY: 1.25,
  });
});
