import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { designScale, MASHUP_LAYOUTS, MASHUP_VIEWS, screenDocument } from "./shell.ts";

const size = { width: 800, height: 480 };

Deno.test("a view's markup sits in TRMNL's shell for the panel's depth", () => {
  const page = screenDocument({ markup: '<div class="layout">Hi</div>' }, size, 2);
  assert(
    page.includes(
      '<div class="screen screen--2bit"><div class="view view--full"><div class="layout">Hi</div>' +
        "</div></div>",
    ),
  );
  const half = screenDocument({ view: "quadrant", markup: "x" }, size, 1);
  assert(half.includes('<div class="screen screen--1bit"><div class="view view--quadrant">x'));
});

Deno.test("mashups lay their views out in reading order, one per slot", () => {
  for (const layout of MASHUP_LAYOUTS) {
    const views = MASHUP_VIEWS[layout];
    const page = screenDocument(
      { mashup: layout, markups: views.map((_, i) => `<p>slot ${i}</p>`) },
      size,
      1,
    );
    const expected = views.map((view, i) =>
      `<div class="view view--${view}"><p>slot ${i}</p></div>`
    )
      .join("");
    assert(page.includes(`<div class="mashup mashup--${layout}">${expected}</div>`), layout);
  }
  assertEquals(MASHUP_VIEWS["1Lx2R"], ["half_vertical", "quadrant", "quadrant"]);
  assertEquals(MASHUP_VIEWS["2x2"].length, 4);
});

Deno.test("the page allows only inline and data: resources", () => {
  const page = screenDocument({ markup: "" }, size, 1);
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page)?.[1];
  assert(csp?.includes("default-src 'none'"));
  assert(csp?.includes("connect-src 'none'"));
  assert(csp?.includes("img-src data: blob:"));
});

Deno.test("an operator's stylesheet replaces the built-in one and cannot close its element", () => {
  const page = screenDocument({ markup: "" }, size, 4, {
    stylesheet: ".title{color:red}</style><script>x()</script>",
  });
  assert(page.includes(".title{color:red}<\\/style><script>x()</script>"));
  assert(!page.includes(".grid--cols-12"), "the built-in stylesheet is gone");
  assert(screenDocument({ markup: "" }, size, 4).includes(".grid--cols-12"));
});

Deno.test("the design pixel scales with the panel", () => {
  assertEquals(designScale(800, 480), 1);
  assertEquals(designScale(1872, 1404), 2.34);
  assertEquals(designScale(200, 100), 0.5);
  assert(screenDocument({ markup: "" }, { width: 1872, height: 1404 }, 4).includes("--u:2.34px"));
});

Deno.test("screen options: no padding, dark mode", () => {
  const page = screenDocument({ markup: "" }, size, 1, { noScreenPadding: true, darkMode: true });
  assert(
    page.includes(
      'class="screen screen--1bit screen--no-bleed no_screen_padding screen--dark-mode"',
    ),
  );
});
