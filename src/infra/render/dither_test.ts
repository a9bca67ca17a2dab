import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { DITHER_KERNELS, ditherPacked } from "./dither.ts";

/** Level indexes of both formats, unpacked: [2-level, 4-level]. */
function levels(values: number[], width: number, height: number, kernel = "floyd-steinberg") {
  const grey = Uint8Array.from(values);
  const { raw2, raw4 } = ditherPacked(grey, width, height, kernel as never);
  const s2 = (width + 7) >> 3;
  const s4 = (width + 3) >> 2;
  const two: number[] = [];
  const four: number[] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      two.push((raw2[y * s2 + (x >> 3)] >> (7 - (x & 7))) & 1);
      four.push((raw4[y * s4 + (x >> 2)] >> (6 - 2 * (x & 3))) & 3);
    }
  }
  return [two, four];
}

Deno.test("dither: black and white stay put with every kernel", () => {
  for (const kernel of DITHER_KERNELS) {
    assertEquals(levels([0, 0, 255, 255], 2, 2, kernel), [[0, 0, 1, 1], [0, 0, 3, 3]]);
  }
});

Deno.test("dither: nearest level with ties towards white; 4 levels keep 0, 85, 170, 255", () => {
  assertEquals(levels([128], 1, 1)[0], [1]);
  assertEquals(levels([127], 1, 1)[0], [0]);
  assertEquals(levels([0, 85, 170, 255], 4, 1)[1], [0, 1, 2, 3]);
});

Deno.test("dither: Floyd–Steinberg sends 7/16 ahead, serpentine on odd rows", () => {
  // 128 → white leaves -127; the next pixel gets 128 - 127·7/16 = 72 → black
  assertEquals(levels([128, 128], 2, 1)[0], [1, 0]);
  // Row 1 runs right to left, so on a white row 0 its rightmost pixel is decided first.
  assertEquals(levels([255, 255, 255, 128, 128, 128], 3, 2)[0].slice(3), [1, 0, 1]);
});

Deno.test("dither: Atkinson drops a quarter of the error (a 90% grey turns white)", () => {
  const size = 32;
  const light = new Array(size * size).fill(230);
  const [fs] = levels(light, size, size, "floyd-steinberg");
  const [atkinson] = levels(light, size, size, "atkinson");
  assert.ok(fs.filter((v) => v === 0).length > 60, "Floyd–Steinberg keeps about 10% black");
  assert.ok(atkinson.filter((v) => v === 0).length < fs.filter((v) => v === 0).length / 2);
});

Deno.test("dither: threshold is the nearest level, no diffusion", () => {
  assertEquals(levels([100, 100, 200, 200], 4, 1, "threshold"), [[0, 0, 1, 1], [1, 1, 2, 2]]);
});

Deno.test("dither: a uniform 25% grey averages to 25% white (Floyd–Steinberg), less (Atkinson)", () => {
  for (const kernel of ["floyd-steinberg", "atkinson"]) {
    const size = 64;
    const [two, four] = levels(new Array(size * size).fill(64), size, size, kernel);
    const white = two.reduce((sum, v) => sum + v, 0) / two.length;
    if (kernel === "floyd-steinberg") assert.ok(Math.abs(white - 64 / 255) < 0.03, `${white}`);
    else assert.ok(white > 0.1 && white < 64 / 255, `atkinson: ${white}`);
    // 64 sits between dark grey 85 and black: 4 levels use those two only.
    assert.ok(four.every((v) => v <= 1), kernel);
  }
});

Deno.test("dither: fixed pixels keep their level and stop the error", () => {
  // A mid-grey column next to a black glyph column on white: the glyph and white stay exact.
  const width = 6;
  const grey: number[] = [];
  const fixed: number[] = [];
  for (let y = 0; y < 6; y++) {
    for (let x = 0; x < width; x++) {
      grey.push(x < 3 ? 128 : x === 3 ? 0 : 255);
      fixed.push(x >= 3 ? 1 : 0);
    }
  }
  for (const kernel of ["floyd-steinberg", "atkinson"] as const) {
    const { raw2, raw4 } = ditherPacked(
      Uint8Array.from(grey),
      width,
      6,
      kernel,
      Uint8Array.from(fixed),
    );
    for (let y = 0; y < 6; y++) {
      assertEquals(raw2[y] & 0b000111_00, 0b000011_00, `${kernel} row ${y}`);
      assertEquals([raw4[2 * y] & 3, raw4[2 * y + 1] >> 4], [0, 0b1111], `${kernel} row ${y}`);
    }
  }
});

Deno.test("dither: packed rows of odd widths are padded to whole bytes", () => {
  const { raw2, raw4 } = ditherPacked(new Uint8Array(13 * 2).fill(255), 13, 2, "atkinson");
  assertEquals([...raw2], [0xff, 0xf8, 0xff, 0xf8]);
  assertEquals([...raw4], [0xff, 0xff, 0xff, 0xc0, 0xff, 0xff, 0xff, 0xc0]);
  assertEquals(
    ditherPacked(new Uint8Array(384000), 800, 480, "floyd-steinberg").raw2.length,
    48000,
  );
});
