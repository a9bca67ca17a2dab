import { assertEquals } from "../../../../tests/helpers/assert.ts";
import { matchRules, parseDeclarations, parseStylesheet } from "./css.ts";

Deno.test("css: declarations become camelCase satori styles, unitless numbers numbers", () => {
  assertEquals(
    parseDeclarations("font-size: 24px; line-height: 1.4; font-weight:700 ;-webkit-line-clamp: 2"),
    { fontSize: "24px", lineHeight: 1.4, fontWeight: 700, lineClamp: 2 },
  );
  assertEquals(parseDeclarations("line-clamp: 3; color: #000 !important"), {
    lineClamp: 3,
    color: "#000",
  });
});

Deno.test("css: nothing that makes the renderer fetch survives (url(), expression())", () => {
  assertEquals(
    parseDeclarations(
      "background-image: url(http://169.254.169.254/x); background: URL ('a.png'); width: expression(1); color: red",
    ),
    { color: "red" },
  );
});

Deno.test("css: malformed declarations are skipped, not guessed", () => {
  assertEquals(parseDeclarations(": 1; color; width: ; height: 2px"), { height: "2px" });
});

Deno.test("css: stylesheet rules apply by specificity, then source order", () => {
  const rules = parseStylesheet(`
    /* comment */
    .a { color: red; font-size: 10px }
    div { color: blue; width: 5px }
    div.a { color: green }
    .b, .a.b { font-size: 20px }
    @media print { .a { color: pink } }
    #id > .a { color: black }
  `);
  assertEquals(matchRules(rules, "div", ["a"]), { color: "green", width: "5px", fontSize: "10px" });
  assertEquals(matchRules(rules, "span", ["a", "b"]), { color: "red", fontSize: "20px" });
  assertEquals(matchRules(rules, "div", []), { color: "blue", width: "5px" });
});
