import { assertEquals } from "../../../../tests/helpers/assert.ts";
import { CJK_FONT_FAMILY, fontsFor, loadFonts } from "./fonts.ts";

Deno.test("fontsFor: Latin, Greek and Cyrillic text gets the two Latin fonts, the same list each time", async () => {
  const latin = await fontsFor("Hello, wörld — “quoted” ß Ωμέγα Привет\n\ttabbed");
  assertEquals(latin.map((f) => f.weight), [400, 700]);
  assertEquals(latin.some((f) => f.name === CJK_FONT_FAMILY), false);
  assertEquals(await fontsFor("other text"), latin);
});

Deno.test("fontsFor: a character the Latin fonts lack brings in all three, the Latin ones first", async () => {
  const all = await loadFonts();
  assertEquals(await fontsFor("Warm 暖"), all);
  // A symbol outside Noto Sans goes to the CJK font too, as it did when all three were always set.
  assertEquals(await fontsFor("done ◦"), all);
  const latin = await fontsFor("");
  assertEquals(all.slice(0, 2), latin);
  assertEquals(all[2].name, CJK_FONT_FAMILY);
});
