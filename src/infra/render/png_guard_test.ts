import { decode, encode } from "fast-png";
import { deflateSync } from "node:zlib";
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { buildPng, ihdr, pngChunk } from "../../../tests/helpers/bombs.ts";
import { guardPng, inflatedSize } from "./png_guard.ts";

const rows = (bytes: number) => deflateSync(new Uint8Array(bytes));

function refusal(result: ReturnType<typeof guardPng>) {
  return result.ok ? "ok" : `${result.code}: ${result.message}`;
}

Deno.test("png guard: inflated size is what the header allows, Adam7 passes included", () => {
  const h = { width: 800, height: 480, depth: 8, colorType: 0, interlace: 0 };
  assertEquals(inflatedSize(h), 480 * 801);
  assertEquals(inflatedSize({ ...h, colorType: 6, depth: 16 }), 480 * (1 + 800 * 8));
  assertEquals(inflatedSize({ ...h, width: 9, depth: 1 }), 480 * 3);
  // 8x8 grey Adam7: passes of 1x1, 1x1, 2x1, 2x2, 4x2, 4x4, 8x4 pixels, each row + filter byte
  assertEquals(inflatedSize({ ...h, width: 8, height: 8, interlace: 1 }), 79);
  // 1x1 interlaced: only the first pass has pixels
  assertEquals(inflatedSize({ ...h, width: 1, height: 1, interlace: 1 }), 2);
});

Deno.test("png guard: a valid PNG passes, without the chunks the render ignores", () => {
  const data = new Uint8Array(30 * 20).map((_, i) => i % 251);
  const png = encode({ width: 30, height: 20, data, channels: 1, text: { note: "hello" } });
  const withIcc = buildPng(ihdr(30, 20), [
    pngChunk("iCCP", Uint8Array.from([0x61, 0, 0, ...deflateSync(new Uint8Array(99))])),
    pngChunk("IDAT", deflateSync(decodeRows(png))),
  ]);
  for (const source of [png, withIcc]) {
    const result = guardPng(source);
    assert.ok(result.ok, refusal(result));
    const decoded = decode(result.png);
    assertEquals([decoded.width, decoded.height, decoded.iccEmbeddedProfile], [30, 20, undefined]);
    assertEquals([...decoded.data], [...data]);
  }
});

/** The filtered rows of a fast-png image (filter 0 for every row), for re-wrapping. */
function decodeRows(png: Uint8Array): Uint8Array {
  const { width, height, data } = decode(png);
  const out = new Uint8Array(height * (width + 1));
  for (let y = 0; y < height; y++) {
    out.set(data.subarray(y * width, (y + 1) * width) as Uint8Array, y * (width + 1) + 1);
  }
  return out;
}

Deno.test("png guard: one byte more than the header allows is refused, one less too", () => {
  const exact = buildPng(ihdr(10, 10), [pngChunk("IDAT", rows(110))]);
  assert.ok(guardPng(exact).ok);
  const more = guardPng(buildPng(ihdr(10, 10), [pngChunk("IDAT", rows(111))]));
  assertEquals(more.ok ? "" : more.code, "too_large");
  const less = guardPng(buildPng(ihdr(10, 10), [pngChunk("IDAT", rows(109))]));
  assertEquals(less.ok ? "" : less.code, "undecodable");
  // Split over several IDAT chunks counts as one stream.
  const stream = rows(110);
  const split = buildPng(ihdr(10, 10), [
    pngChunk("IDAT", stream.subarray(0, 5)),
    pngChunk("IDAT", stream.subarray(5)),
  ]);
  assert.ok(guardPng(split).ok);
});

/** `bytes` with the chunk type at `at` replaced. */
function renamed(bytes: Uint8Array, at: number, type: string): Uint8Array {
  const out = bytes.slice();
  out.set(Array.from(type, (c) => c.charCodeAt(0)), at);
  return out;
}

Deno.test("png guard: broken structure and headers over the budget are refused", () => {
  const cases: Array<[string, Uint8Array, string]> = [
    [
      "no IHDR first",
      renamed(buildPng(ihdr(2, 2), []), 12, "JUNK"),
      "undecodable",
    ],
    ["bad depth", buildPng(ihdr(2, 2, { depth: 3 }), [pngChunk("IDAT", rows(6))]), "undecodable"],
    ["zero width", buildPng(ihdr(0, 2), [pngChunk("IDAT", rows(2))]), "undecodable"],
    [
      "palette without PLTE",
      buildPng(ihdr(2, 2, { colorType: 3 }), [pngChunk("IDAT", rows(6))]),
      "undecodable",
    ],
    [
      "not zlib",
      buildPng(ihdr(2, 2), [pngChunk("IDAT", new Uint8Array([1, 2, 3]))]),
      "undecodable",
    ],
    ["over 40 megapixels", buildPng(ihdr(8000, 6000), []), "too_large"],
    [
      "16-bit RGBA over the budget",
      buildPng(ihdr(5000, 5000, { depth: 16, colorType: 6 }), []),
      "too_large",
    ],
  ];
  for (const [name, bytes, code] of cases) {
    const result = guardPng(Uint8Array.from(bytes));
    assertEquals(result.ok ? "ok" : result.code, code, name);
  }
  const png = buildPng(ihdr(2, 2), [pngChunk("IDAT", rows(6))]);
  const truncated = guardPng(png.subarray(0, png.length - 20));
  assertEquals(
    truncated.ok ? "" : truncated.message,
    "PNG chunk IDAT runs past the end of the file",
  );
});
