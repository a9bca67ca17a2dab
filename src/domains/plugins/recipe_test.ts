import { zipSync } from "fflate";
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { render, trmnlContext } from "../../infra/liquid/trmnl.ts";
import { exportRecipe, offline, parseRecipe, type PluginInput, RecipeError } from "./recipe.ts";

const encoder = new TextEncoder();
const FIXTURE = new URL("../../../examples/plugins/weather/", import.meta.url);

/** The weather recipe's files, as a trmnlp project on disk holds them. */
async function weatherFiles(): Promise<Record<string, Uint8Array>> {
  const files: Record<string, Uint8Array> = {
    ".trmnlp.yml": await Deno.readFile(new URL(".trmnlp.yml", FIXTURE)),
  };
  for await (const entry of Deno.readDir(new URL("src/", FIXTURE))) {
    files[`src/${entry.name}`] = await Deno.readFile(new URL(`src/${entry.name}`, FIXTURE));
  }
  return files;
}

function zip(files: Record<string, Uint8Array | string>): Uint8Array {
  return zipSync(
    Object.fromEntries(
      Object.entries(files).map((
        [name, content],
      ) => [name, typeof content === "string" ? encoder.encode(content) : content]),
    ),
  );
}

/** Runs `fn`, which must throw a RecipeError whose message matches `pattern`. */
function refuses(fn: () => unknown, pattern: RegExp): void {
  try {
    fn();
  } catch (error) {
    assert(error instanceof RecipeError, String(error));
    assert.match(error.message, pattern);
    return;
  }
  assert.fail("The recipe was not refused");
}

Deno.test("a trmnlp project zip imports as the plugin its settings.yml and views describe", async () => {
  const { input, warnings, customFieldDefinitions } = parseRecipe(zip(await weatherFiles()));
  assertEquals(input.name, "Weather Now");
  assertEquals(input.strategy, "polling");
  assertEquals(input.refreshMinutes, 30);
  assertEquals(input.polling?.verb, "GET");
  assertEquals(input.polling?.urls.length, 1);
  assert(input.polling!.urls[0].includes("latitude={{ latitude }}"));
  assertEquals(input.polling?.headers, {
    accept: "application/json",
    "user-agent": "trmnl-recipe/1.0",
  });
  assertEquals(input.customFields, { latitude: "52.52", longitude: "13.41", units: "Metric" });
  assertEquals(customFieldDefinitions.map((f) => f.keyname), [
    "about",
    "latitude",
    "longitude",
    "units",
  ]);
  assertEquals(Object.keys(input.markup).sort(), [
    "full",
    "halfHorizontal",
    "halfVertical",
    "quadrant",
    "shared",
  ]);
  assertEquals(input.staticData, undefined);
  assertEquals(warnings, []);
});

Deno.test("the imported markup renders with TRMNL's variables and shared templates", async () => {
  const { input } = parseRecipe(zip(await weatherFiles()));
  const html = render(
    input.markup.shared! + input.markup.full,
    trmnlContext({
      mergeVariables: {
        current: { temperature_2m: 21.4, wind_speed_10m: 11.6 },
        daily: {
          time: ["2025-06-02", "2025-06-03", "2025-06-04"],
          temperature_2m_min: [12, 13, 14],
          temperature_2m_max: [22, 23, 24],
        },
      },
      user: { name: "Ada", locale: "de", timeZone: "Europe/Berlin" },
      device: { width: 800, height: 480 },
      customFieldsValues: input.customFields,
      plugin: { instanceName: "Berlin" },
      now: new Date("2025-06-02T08:00:00Z"),
    }),
  );
  assert(html.includes("21°C"), html);
  assert(html.includes("Wind 12 km/h"));
  assert(html.includes("Dienstag"));
  assert.match(html, /Berlin · Mo\.? 10:00/);
});

Deno.test("TRMNL's flat export, and a zip wrapping the project in one folder, import alike", async () => {
  const files = await weatherFiles();
  const flat = Object.fromEntries(
    Object.entries(files).filter(([name]) => name.startsWith("src/")).map((
      [name, content],
    ) => [name.slice(4), content]),
  );
  const wrapped = Object.fromEntries(
    Object.entries(files).map(([name, content]) => [`weather-now/${name}`, content]),
  );
  const expected = parseRecipe(zip(files)).input;
  assertEquals(parseRecipe(zip(flat)).input, expected);
  assertEquals(
    parseRecipe(zip({ ...wrapped, "__MACOSX/weather-now/src/._full.liquid": "x" })).input,
    expected,
  );
});

Deno.test("export writes the trmnlp layout, which imports back to the same plugin", async () => {
  const { input, customFieldDefinitions } = parseRecipe(zip(await weatherFiles()));
  const exported = exportRecipe(input, customFieldDefinitions);
  const back = parseRecipe(exported);
  assertEquals(back.input, input);
  assertEquals(back.customFieldDefinitions, customFieldDefinitions);
  assertEquals(exportRecipe(input, customFieldDefinitions), exported, "same bytes each time");

  const plugin: PluginInput = {
    name: 'Quotes: "daily" & more',
    strategy: "polling",
    markup: { full: "<p>{{ quote }}</p>", quadrant: "{{ quote | truncate: 20 }}" },
    staticData: { seed: [1, 2, { deep: "x" }] },
    polling: {
      urls: ["https://a.example/q?x=1&y=2", "https://b.example/{{ key }}"],
      verb: "POST",
      headers: { authorization: "Bearer a=b&c", "x-note": "ünïcode + space" },
      body: '{"q": "{{ topic }}"}',
    },
    refreshMinutes: 60,
    customFields: { key: "abc", count: 3 },
  };
  assertEquals(parseRecipe(exportRecipe(plugin)).input, plugin);
  const webhook: PluginInput = { name: "Inbox", strategy: "webhook", markup: { full: "x" } };
  assertEquals(parseRecipe(exportRecipe(webhook)).input, webhook);
});

Deno.test("warnings name what will not work as on TRMNL", () => {
  const { input, warnings } = parseRecipe(zip({
    "settings.yml": [
      "name: Odd",
      "strategy: polling",
      "polling_url: ''",
      "refresh_interval: 1",
      "dark_mode: 'yes'",
      "framework_version: 2.1.0",
      "serverless_language: python",
      "oauth_provider: google",
    ].join("\n"),
    "full.liquid": "{{ x | shopify_money }}{{ y | number_with_delimiter }}",
    "transform.py": "def transform(data): return data",
  }));
  assertEquals(input.strategy, "static");
  assertEquals(input.refreshMinutes, 5);
  for (
    const pattern of [
      /no polling_url/,
      /refresh_interval 1 is outside/,
      /dark_mode/,
      /framework_version 2\.1\.0/,
      /serverless transform/,
      /OAuth/,
      /Filter "shopify_money"/,
    ]
  ) assert(warnings.some((w) => pattern.test(w)), `${pattern} in ${warnings.join("; ")}`);
  assertEquals(warnings.filter((w) => /serverless/.test(w)).length, 1);
  assert(!warnings.some((w) => w.includes("number_with_delimiter")));
});

Deno.test("static_data JSON text becomes the plugin's staticData", () => {
  const { input } = parseRecipe(zip({
    "settings.yml":
      'strategy: static\nstatic_data: \'{"message": "hello"}\'\nrefresh_interval: 99999',
    "full.liquid": "{{ message }}",
  }));
  assertEquals(input.staticData, { message: "hello" });
  assertEquals(input.refreshMinutes, 1440);
  refuses(
    () => parseRecipe(zip({ "settings.yml": "static_data: '{nope'", "full.liquid": "x" })),
    /static_data is not JSON/,
  );
});

Deno.test("refused: a body that is not a zip", () => {
  refuses(() => parseRecipe(encoder.encode('{"name": "not a zip"}')), /not a zip/);
  refuses(() => parseRecipe(new Uint8Array(0)), /not a zip/);
});

Deno.test("refused: a zip over 1 MiB packed", () => {
  const noise = crypto.getRandomValues(new Uint8Array(65536));
  const big = new Uint8Array(1024 * 1024 + 1);
  for (let at = 0; at < big.length; at += noise.length) {
    big.set(noise.subarray(0, big.length - at), at);
  }
  refuses(() => parseRecipe(zipSync({ "full.liquid": [big, { level: 0 }] })), /over 1 MiB/);
});

Deno.test("refused: a zip bomb, cut by the unpacked limit", () => {
  const bomb = zip({ "full.liquid": new Uint8Array(11 * 1024 * 1024) });
  assert(bomb.length < 64 * 1024);
  refuses(() => parseRecipe(bomb), /more than 10 MiB/);
});

Deno.test("refused: an entry whose declared size lies is cut while inflating", () => {
  const bomb = zip({ "full.liquid": new Uint8Array(11 * 1024 * 1024), "settings.yml": "name: x" });
  // Declare 100 bytes in the central directory and the local header.
  const view = new DataView(bomb.buffer);
  for (let at = 0; at < bomb.length - 4; at++) {
    const signature = view.getUint32(at, true);
    if (signature === 0x02014b50) view.setUint32(at + 24, 100, true);
    if (signature === 0x04034b50) view.setUint32(at + 22, 100, true);
  }
  refuses(() => parseRecipe(bomb), /more than 10 MiB/);
});

Deno.test("refused: paths that leave the archive", () => {
  for (const name of ["../full.liquid", "/etc/full.liquid", "src\\full.liquid", "a/../../x"]) {
    refuses(() => parseRecipe(zip({ [name]: "x", "full.liquid": "y" })), /outside the archive/);
  }
});

Deno.test("refused: more than 64 entries", () => {
  const files: Record<string, string> = { "full.liquid": "x" };
  for (let i = 0; i < 64; i++) files[`junk/${i}.txt`] = "x";
  refuses(() => parseRecipe(zip(files)), /65 entries/);
});

Deno.test("refused: a recipe without markup", () => {
  refuses(() => parseRecipe(zip({ "settings.yml": "name: x" })), /no markup in full\.liquid/);
  refuses(() => parseRecipe(zip({ "readme.txt": "hello" })), /no recipe/);
  refuses(
    () => parseRecipe(zip({ "src/settings.yml": "name: x", "src/full.liquid": "  \n" })),
    /no markup/,
  );
});

Deno.test("refused: settings.yml that is not a mapping, does not parse, or bombs with aliases", () => {
  refuses(
    () => parseRecipe(zip({ "settings.yml": "- a\n- b", "full.liquid": "x" })),
    /not a mapping/,
  );
  refuses(
    () => parseRecipe(zip({ "settings.yml": "just text", "full.liquid": "x" })),
    /not a mapping/,
  );
  refuses(
    () => parseRecipe(zip({ "settings.yml": "a: [1\nb: 2", "full.liquid": "x" })),
    /does not parse/,
  );
  const laughs = ["a: &a [x, x, x, x, x, x, x, x, x]"];
  for (const [name, previous] of [["b", "a"], ["c", "b"], ["d", "c"], ["e", "d"], ["f", "e"]]) {
    laughs.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(", ")}]`);
  }
  refuses(
    () => parseRecipe(zip({ "settings.yml": laughs.join("\n"), "full.liquid": "x" })),
    /does not parse: .*(alias|resource)/i,
  );
});

Deno.test("offline: names what the markup loads from the network", () => {
  const markup = '<link rel="stylesheet" href="https://usetrmnl.com/css/latest/plugins.css">' +
    '<script src="https://usetrmnl.com/js/latest/plugins.js"></script>' +
    "<style>@import url('//fonts.example/a.css'); .x{background:url(https://a.b/c.png)}</style>" +
    '<img src="{{ picture }}"><img src="data:image/png;base64,AAAA">';
  assertEquals(offline(markup).map((w) => w.split(" ")[0]), [
    "https://usetrmnl.com/css/latest/plugins.css",
    "https://usetrmnl.com/js/latest/plugins.js",
    "//fonts.example/a.css",
    "https://a.b/c.png",
  ]);
});
