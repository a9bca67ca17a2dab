import { assertEquals } from "../../../../tests/helpers/assert.ts";
import { cssColour, isHexColour, luma, overWhite, parseHex } from "./colour.ts";

Deno.test("colour: the four hex forms parse, anything else does not", () => {
  assertEquals(parseHex("#fff"), { r: 255, g: 255, b: 255, a: 255 });
  assertEquals(parseHex("#0008"), { r: 0, g: 0, b: 0, a: 136 });
  assertEquals(parseHex("#1D3557"), { r: 29, g: 53, b: 87, a: 255 });
  assertEquals(parseHex("#FF000080"), { r: 255, g: 0, b: 0, a: 128 });
  for (const bad of ["red", "#12", "#12345", "123456", "#GGGGGG", 0xffffff, null]) {
    assertEquals(isHexColour(bad), false, String(bad));
  }
});

Deno.test("colour: alpha over white, CSS form and luma", () => {
  assertEquals(overWhite({ r: 255, g: 0, b: 0, a: 128 }), { r: 255, g: 127, b: 127, a: 255 });
  assertEquals(cssColour({ r: 1, g: 2, b: 3, a: 255 }), "rgb(1, 2, 3)");
  assertEquals(cssColour({ r: 1, g: 2, b: 3, a: 51 }), "rgba(1, 2, 3, 0.200)");
  assertEquals(luma({ r: 255, g: 255, b: 255, a: 255 }), 255);
  assertEquals(Math.round(luma({ r: 255, g: 0, b: 0, a: 255 })), 76);
});
