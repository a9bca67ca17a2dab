import { encode } from "fast-png";
import { assert, assertEquals } from "../../../../tests/helpers/assert.ts";
import { htmlToTree, type LayoutNode } from "../layout/html.ts";
import { renderLiquid } from "./liquid.ts";
import { templateRegistry } from "./registry.ts";
import { renderTemplateBitmaps, renderTemplateGrey } from "./render.ts";

const registry = templateRegistry();
const NOW = "2025-03-14T09:00:00Z";

/** A 64x48 grey gradient PNG: a "photo" with every grey in it. */
function gradientPng(): Uint8Array {
  const data = new Uint8Array(64 * 48);
  for (let i = 0; i < data.length; i++) data[i] = ((i % 64) * 255) / 63;
  return encode({ width: 64, height: 48, data, channels: 1 });
}

Deno.test("template render: a note's <b> and & reach the layout as text, not markup", async () => {
  const template = registry.get("note")!;
  const variables = await registry.validate("note", { body: "<b>Bold?</b> & &amp; <img src=x>" });
  const tree = htmlToTree(renderLiquid(template.markup, variables, NOW), {});
  const texts: string[] = [];
  const types: string[] = [];
  (function walk(node: LayoutNode | string) {
    if (typeof node === "string") return void texts.push(node);
    types.push(node.type);
    const children = node.props.children;
    for (const child of Array.isArray(children) ? children : children ? [children] : []) {
      walk(child);
    }
  })(tree);
  assert.ok(texts.includes("<b>Bold?</b> & &amp; <img src=x>"), JSON.stringify(texts));
  assert.ok(!types.includes("span") && !types.includes("img"));
});

Deno.test("template render: text is black on white, never grey, so no glyph edge is dithered", async () => {
  const result = await renderTemplateGrey(registry, {
    name: "note",
    variables: registry.get("note")!.sample,
  });
  assert.ok(result.ok);
  const values = new Set(result.grey);
  assertEquals([...values].sort((a, b) => a - b), [0, 255]);
});

Deno.test("template render: the photo is dithered, the caption on its band stays crisp", async () => {
  const result = await renderTemplateBitmaps(registry, {
    name: "photo",
    variables: { photo: "file-1", caption: "Caption", fit: "cover" },
    images: { "file-1": gradientPng() },
  });
  assert.ok(result.ok);
  const { raw2, raw4 } = result.bitmaps;
  const bit = (x: number, y: number) => (raw2[y * 100 + (x >> 3)] >> (7 - (x & 7))) & 1;
  const level = (x: number, y: number) => (raw4[y * 200 + (x >> 2)] >> (6 - 2 * (x & 3))) & 3;
  // Mid-grey of the gradient (x around 400): a dot pattern, with middle levels in raw4.
  let white = 0;
  const middle = new Set<number>();
  for (let y = 100; y < 300; y++) {
    for (let x = 380; x < 420; x++) {
      white += bit(x, y);
      middle.add(level(x, y));
    }
  }
  assert.ok(white > 2000 && white < 6000, `dithered, ${white} of 8000 white`);
  assert.ok(middle.has(1) || middle.has(2));
  // The caption band (y 424..480) is pure black and white in both formats.
  for (let y = 424; y < 480; y++) {
    for (let x = 0; x < 800; x++) assert.ok(level(x, y) === 0 || level(x, y) === 3, `${x},${y}`);
  }
});

Deno.test("template render: failures are values with the code the pool maps to a status", async () => {
  const cases: [Parameters<typeof renderTemplateBitmaps>[1], string, RegExp][] = [
    [{ name: "nope", variables: {} }, "not_found", /Template nope not found/],
    [{ name: "note", variables: { body: 1 } }, "invalid_request", /Variable body must be string/],
    [
      { name: "photo", variables: { photo: "f" } },
      "invalid_request",
      /Variable photo: image f was not provided/,
    ],
    [
      {
        name: "photo",
        variables: { photo: "f" },
        images: { f: new TextEncoder().encode("not an image") },
      },
      "unsupported_format",
      /not supported/,
    ],
    [
      {
        name: "photo",
        variables: { photo: "f" },
        images: {
          f: Uint8Array.from([
            0x89,
            0x50,
            0x4e,
            0x47,
            0x0d,
            0x0a,
            0x1a,
            0x0a,
            0,
            0,
            0,
            13,
            73,
            72,
            68,
            82,
            0,
            0,
            0,
            8,
            0,
            0,
            0,
            8,
            8,
            0,
          ]),
        },
      },
      "undecodable",
      /could not be decoded/,
    ],
  ];
  for (const [input, code, message] of cases) {
    const result = await renderTemplateBitmaps(registry, input);
    assert.ok(!result.ok);
    assertEquals(result.code, code);
    assert.match(result.message, message);
  }
});

Deno.test("template render: the reminder counts days from the render's now", async () => {
  const variables = { title: "Trip", date: "2025-03-16" };
  const at = (now: string) => renderTemplateBitmaps(registry, { name: "reminder", variables, now });
  const [a, b, c] = await Promise.all([
    at(NOW),
    at("2025-03-14T23:59:00Z"),
    at("2025-03-15T00:00:00Z"),
  ]);
  assert.ok(a.ok && b.ok && c.ok);
  assertEquals(a.bitmaps.raw2, b.bitmaps.raw2); // same calendar day
  assert.notDeepStrictEqual(a.bitmaps.raw2, c.bitmaps.raw2); // a day later: 1 day to go
});

Deno.test("template render: every template renders with its required variables alone", async () => {
  for (const { name } of registry.list()) {
    const template = registry.get(name)!;
    const required = (template.schema.required ?? []) as string[];
    const variables = Object.fromEntries(required.map((key) => [key, template.sample[key]]));
    const images = Object.fromEntries(
      template.imageVariables.filter((v) => required.includes(v)).map((v) => [
        String(template.sample[v]),
        gradientPng(),
      ]),
    );
    const result = await renderTemplateBitmaps(registry, { name, variables, images });
    assert.ok(result.ok, `${name}: ${result.ok ? "" : result.message}`);
  }
});
