import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { compatibility, LiquidMarkupError, render, trmnlContext, unknownFilters } from "./trmnl.ts";

const NOW = new Date("2025-12-31T12:00:00Z");

function context(vars: Record<string, unknown> = {}, timeZone = "UTC", locale = "en") {
  return trmnlContext({
    mergeVariables: vars,
    user: { name: "Ada Lovelace", locale, timeZone },
    device: { friendlyId: "ABC123", width: 800, height: 480, percentCharged: 74.5 },
    customFieldsValues: { units: "metric" },
    plugin: { instanceName: "Weather", strategy: "polling" },
    now: NOW,
  });
}

/** Runs `fn`, which must throw a LiquidMarkupError whose message matches `pattern`. */
function refuses(fn: () => unknown, pattern?: RegExp): LiquidMarkupError {
  try {
    fn();
  } catch (error) {
    assert(error instanceof LiquidMarkupError, String(error));
    if (pattern) assert.match(error.message, pattern);
    return error;
  }
  assert.fail("The markup was not refused");
}

const r = (markup: string, vars: Record<string, unknown> = {}) => render(markup, context(vars));

Deno.test("the context lays merge variables at the top and trmnl's objects beside them", () => {
  const ctx = context({ temp: 21, trmnl: "spoofed" }, "Europe/Berlin");
  assertEquals(ctx.temp, 21);
  const trmnl = ctx.trmnl as Record<string, Record<string, unknown>>;
  assertEquals(trmnl.user.first_name, "Ada");
  assertEquals(trmnl.user.time_zone_iana, "Europe/Berlin");
  assertEquals(trmnl.user.utc_offset, 3600);
  assertEquals(trmnl.device.friendly_id, "ABC123");
  assertEquals(trmnl.system.timestamp_utc, 1767182400);
  assertEquals(
    (trmnl.plugin_settings.custom_fields_values as Record<string, unknown>).units,
    "metric",
  );
  assertEquals(
    render("{{ trmnl.user.name }} {{ trmnl.device.width }}x{{ trmnl.device.height }}", ctx),
    "Ada Lovelace 800x480",
  );
});

Deno.test("output is not escaped, as TRMNL's Shopify Liquid; escape is there when wanted", () => {
  assertEquals(r("{{ html }}", { html: "<b>x</b>" }), "<b>x</b>");
  assertEquals(r("{{ html | escape }}", { html: "<b>x</b>" }), "&lt;b&gt;x&lt;/b&gt;");
});

Deno.test("unknown variables are empty and unknown filters leave the value, as on TRMNL", () => {
  assertEquals(r("[{{ missing.deep }}]"), "[]");
  assertEquals(r("{{ 'a' | no_such_filter }}"), "a");
});

Deno.test("number filters print as trmnl-liquid's", () => {
  assertEquals(r("{{ 1234 | number_with_delimiter }}"), "1,234");
  assertEquals(r("{{ 1234 | number_with_delimiter: '.' }}"), "1.234");
  assertEquals(r("{{ 1234.57 | number_with_delimiter: ' ', ',' }}"), "1 234,57");
  assertEquals(r("{{ 10420 | number_to_currency }}"), "$10,420.00");
  assertEquals(r("{{ 152350.69 | number_to_currency: '£' }}"), "£152,350.69");
  assertEquals(r("{{ 1234.57 | number_to_currency: '£', '.', ',' }}"), "£1.234,57");
});

Deno.test("pluralize, ordinalize, map_to_i", () => {
  assertEquals(r('{{ "book" | pluralize: 0 }}'), "0 books");
  assertEquals(r('{{ "book" | pluralize: 1 }}'), "1 book");
  assertEquals(r('{{ "person" | pluralize: 4 }}'), "4 people");
  assertEquals(r('{{ "person" | pluralize: 4, plural: "humans" }}'), "4 humans");
  assertEquals(
    r('{{ "2025-10-02" | ordinalize: "%A, %B <<ordinal_day>>, %Y" }}'),
    "Thursday, October 2nd, 2025",
  );
  assertEquals(
    r('{% assign n = "5, 4, x" | split: ", " | map_to_i %}{{ n | join: "-" }}'),
    "5-4-0",
  );
});

Deno.test("json, parse_json, group_by, find_by, where_exp", () => {
  const people = [{ name: "Ryan", age: 35 }, { name: "Sara", age: 29 }, { name: "Jim", age: 29 }];
  assertEquals(r("{{ data | json }}", { data: [{ a: 1 }, "d"] }), '[{"a":1},"d"]');
  assertEquals(r("{% assign p = data | parse_json %}{{ p.a }}", { data: '{"a":1}' }), "1");
  assertEquals(
    r(
      "{% assign g = people | group_by: 'age' %}{% for pair in g %}{{ pair[0] }}:{{ pair[1].size }} {% endfor %}",
      { people },
    ),
    "29:2 35:1 ",
  );
  assertEquals(r("{{ people | find_by: 'name', 'Sara' | map: 'age' }}", { people }), "29");
  assertEquals(r("{{ people | find_by: 'name', 'Bob', 'none' }}", { people }), "none");
  assertEquals(
    r("{{ people | where_exp: 'p', 'p.age < 30' | map: 'name' | join: ',' }}", { people }),
    "Sara,Jim",
  );
});

Deno.test("date filters read the render's clock and the user's zone and locale", () => {
  assertEquals(r("{{ '2025-01-11' | l_date: '%y %b' }}"), "25 Jan");
  assertEquals(r("{{ '2025-01-11' | l_date: '%y %b', 'ko' }}"), "25 1월");
  assertEquals(r("{{ '2025-01-11' | l_date: '%A', 'de' }}"), "Samstag");
  assertEquals(r("{{ 3 | days_ago }}"), "2025-12-28");
  assertEquals(r('{{ "2025-12-31 11:00:00" | relative_time }}'), "1 hour ago");
  assertEquals(r('{{ "2025-12-31 11:59:30" | relative_time }}'), "just now");
  assertEquals(r('{{ "2026-01-07 12:00:00" | relative_time }}'), "in 1 week");
  assertEquals(
    r('{{ "2025-12-25 12:00:00" | relative_time: "2025-12-31 12:00:00" }}'),
    "6 days ago",
  );
  assertEquals(r('{{ "today" | l_word: "es" }}'), "hoy");
  assertEquals(r('{{ "tomorrow" | l_word: "ko" }}'), "내일");
  assertEquals(
    render("{{ '2025-06-01T12:00:00Z' | date: '%H:%M' }}", context({}, "Europe/Berlin")),
    "14:00",
  );
});

Deno.test("markdown_to_html formats text but shows raw HTML and script links as text", () => {
  const html = r("{{ md | markdown_to_html }}", {
    md: "*hi* <script>x()</script> [a](javascript:alert(1))",
  });
  assert.match(html, /<em>hi<\/em>/);
  assert(!html.includes("<script>"));
  assert(!html.includes("javascript:"));
});

Deno.test("qr_code is an inline SVG drawn here, append_random adds four hex digits", () => {
  const svg = r('{{ "https://example.com" | qr_code }}');
  assert.match(svg, /^<svg class="qr-code" width="\d+" height="\d+"/);
  assert(svg.endsWith("</svg>"));
  assert(!svg.includes("<image") && !svg.includes("href"), "nothing the page would fetch");
  assert.match(r('{{ "chart-" | append_random }}'), /^chart-[0-9a-f]{4}$/);
});

Deno.test("{% template %} defines partials that render and include use", () => {
  const markup = "{% template card %}<i>{{ label }}</i>{% endtemplate %}" +
    '{% render "card", label: "a" %}{% assign label = "b" %}{% include "card" %}';
  assertEquals(r(markup), "<i>a</i><i>b</i>");
});

Deno.test("refused: a partial that is not defined in the markup is never read from disk", () => {
  const error = refuses(() => r('{% render "/etc/passwd" %}'));
  assert.match(error.message, /etc\/passwd/);
  refuses(() => r('{% include "../../deno.json" %}'));
  refuses(() => r('{% layout "deno.json" %}x'));
});

Deno.test("refused: a template that renders itself stops at the partial renders limit", () => {
  const started = performance.now();
  refuses(
    () => r('{% template a %}x{% render "a" %}{% endtemplate %}{% render "a" %}'),
    /more than 1000 times/,
  );
  assert(performance.now() - started < 1000);
});

Deno.test("refused: a bad template name and an unclosed template", () => {
  refuses(() => r("{% template ../x %}a{% endtemplate %}"), /letters/);
  refuses(() => r("{% template x %}a"), /endtemplate/);
});

Deno.test("refused: markup that does not parse names its line and column", () => {
  const error = refuses(() => r("line one\n{% if x %}never closed"));
  assert.match(error.message, /line:2, col:1/);
  refuses(() => r("{% nonsense %}"), /nonsense/);
});

Deno.test("refused: a loop over a billion items fails fast on the memory budget", () => {
  const started = performance.now();
  refuses(() => r("{% for i in (1..1000000000) %}x{% endfor %}"), /memory/);
  assert(performance.now() - started < 1000);
});

Deno.test("refused: a string doubled thirty times fails on the memory budget", () => {
  const markup = '{% assign s = "x" %}{% for i in (1..30) %}{% assign s = s | append: s %}' +
    "{% endfor %}{{ s.size }}";
  refuses(() => r(markup), /memory/);
});

Deno.test("refused: a render over its deadline fails within the budget", () => {
  const started = performance.now();
  const markup = "{% for a in (1..3000) %}{% for b in (1..3000) %}{% endfor %}{% endfor %}";
  refuses(() => render(markup, context(), { deadlineMs: 200 }));
  assert(performance.now() - started < 2000, `took ${performance.now() - started} ms`);
});

Deno.test("refused: markup over the parse limit", () => {
  refuses(() => r("x".repeat(3 * 1024 * 1024)), /parse/);
});

Deno.test("compatibility names the filters and tags this engine does not know", () => {
  const markup = [
    "{{ a | upcase | fancy_filter: 'x|y' }}",
    "{% assign b = c | other_unknown %}",
    "{% raw %}{{ d | inside_raw }}{% endraw %}",
    "{% comment %}{{ d | inside_comment }}{% endcomment %}",
    "{% liquid\n echo e | liquid_line_filter\n %}",
    "{% section 'x' %}",
    "{{ 'q' | qr_code }}",
  ].join("\n");
  assertEquals(unknownFilters(markup), ["fancy_filter", "liquid_line_filter", "other_unknown"]);
  assertEquals(compatibility(markup), [
    'Filter "fancy_filter" is unknown here: its value is shown unfiltered',
    'Filter "liquid_line_filter" is unknown here: its value is shown unfiltered',
    'Filter "other_unknown" is unknown here: its value is shown unfiltered',
    'Tag "section" is unknown here: the markup will not render',
  ]);
  assertEquals(compatibility("{% template x %}{{ y | l_date: '%b' }}{% endtemplate %}"), []);
});
