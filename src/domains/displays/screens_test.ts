/**
 * The screens drawn as Scenes: the claim screen (issue 34), a code read across a room, whole on one
 * line whatever its letters; the key-less help screen (issue 37).
 */
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { decode } from "fast-png";
import { renderScene } from "../../infra/render/scene/render.ts";
import { claimScene } from "./claim_scene.ts";
import { keylessScene } from "./keyless_scene.ts";

/** The leftmost and rightmost dark columns of a 1-bit PNG between two rows. */
function inkSpan(png: ReturnType<typeof decode>, top: number, bottom: number) {
  const stride = Math.ceil(png.width / 8);
  let left = png.width;
  let right = -1;
  for (let y = top; y < bottom; y++) {
    for (let x = 0; x < png.width; x++) {
      const bit = (png.data[y * stride + (x >> 3)] >> (7 - (x & 7))) & 1;
      if (bit === 0) {
        left = Math.min(left, x);
        right = Math.max(right, x);
      }
    }
  }
  return { left, right };
}

Deno.test("claim screen: the widest code is whole on one line, large, on an 800x480 1-bit PNG", async () => {
  for (const code of ["WMWMWM", "234567"]) {
    const result = await renderScene({
      scene: claimScene(code, "https://displays.example-company.com"),
      width: 800,
      height: 480,
      colorMode: "monochrome",
      mode: "hardcode",
    });
    assert.ok(result.ok);
    const png = decode(result.png);
    assertEquals([png.width, png.height, png.depth], [800, 480, 1]);
    // The code's band: ink from near one margin to near the other for the widest letters (an
    // ellipsis would stop short), never past the margins; at least 80 px tall.
    const { left, right } = inkSpan(png, 90, 230);
    assert.ok(left >= 48 && right < 752, `${code}: ink from ${left} to ${right}`);
    if (code === "WMWMWM") assert.ok(right - left > 600, `${code}: ${right - left} px wide`);
    const tall = inkSpan(png, 100, 180);
    assert.ok(tall.right > tall.left, `${code}: no ink in the code's middle rows`);
  }
});

Deno.test("key-less help screen: every line inside the margins of an 800x480 1-bit PNG", async () => {
  const result = await renderScene({
    scene: keylessScene("https://displays.example-company.com"),
    width: 800,
    height: 480,
    colorMode: "monochrome",
    mode: "hardcode",
  });
  assert.ok(result.ok);
  const png = decode(result.png);
  assertEquals([png.width, png.height, png.depth], [800, 480, 1]);
  const { left, right } = inkSpan(png, 0, 480);
  assert.ok(left >= 48 && right < 752, `ink from ${left} to ${right}`);
  // Each band of text has ink: the title, the two ways, the service's URL.
  for (const [top, bottom] of [[28, 76], [176, 266], [284, 374], [410, 446]]) {
    const band = inkSpan(png, top, bottom);
    assert.ok(band.right > band.left, `no ink between rows ${top} and ${bottom}`);
  }
});
