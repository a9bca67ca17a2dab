import { assert, assertEquals } from "../../../../tests/helpers/assert.ts";
import { daysUntil, renderLiquid } from "./liquid.ts";

const NOW = "2025-03-14T23:30:00Z";

Deno.test("liquid: every output is HTML-escaped, so variables cannot inject markup", () => {
  const html = renderLiquid("<div>{{ body }}</div>", { body: `<b>hi</b> & "q" 'a' &amp;` }, NOW);
  assertEquals(html, "<div>&lt;b&gt;hi&lt;/b&gt; &amp; &#34;q&#34; &#39;a&#39; &amp;amp;</div>");
});

Deno.test("liquid: an undefined variable in output is an error, in an if it is false", () => {
  let error: unknown;
  try {
    renderLiquid("{{ missing }}", {}, NOW);
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof Error && /undefined variable: missing/.test(error.message));
  assertEquals(renderLiquid("{% if missing %}yes{% else %}no{% endif %}", {}, NOW), "no");
});

Deno.test("liquid: dates are calendar dates (UTC), whatever the process time zone", () => {
  assertEquals(
    renderLiquid('{{ d | date: "%A %-d %B %Y" }}', { d: "2025-03-14" }, NOW),
    "Friday 14 March 2025",
  );
});

Deno.test("liquid: days_until counts calendar days from now, negative once past", () => {
  assertEquals(daysUntil("2025-03-21", NOW), 7);
  assertEquals(daysUntil("2025-03-14", NOW), 0);
  assertEquals(daysUntil("2025-03-15", NOW), 1);
  assertEquals(daysUntil("2025-03-10", NOW), -4);
  assertEquals(daysUntil("not a date", NOW), null);
  assertEquals(renderLiquid("{{ d | days_until: now }}", { d: "2025-03-16" }, NOW), "2");
});
