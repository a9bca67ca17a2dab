import { AppError } from "../../../errors.ts";
import { assert, assertEquals } from "../../../../tests/helpers/assert.ts";
import { loadTemplateRegistry, templateRegistry } from "./registry.ts";
import { MAX_VARIABLE_DEPTH, nestedDeeperThan } from "./validate.ts";

const SHIPPED = ["agenda", "checklist", "headline", "note", "photo", "quote", "reminder", "split"];

Deno.test("templates: the eight shipped templates list as {name, title, description, schema}", () => {
  const list = templateRegistry().list();
  assertEquals(list.map((t) => t.name), SHIPPED);
  for (const template of list) {
    assertEquals(Object.keys(template), ["name", "title", "description", "schema"]);
    assert.ok(template.title.length > 0 && template.description.length > 20, template.name);
    // CONTRACT.md: schema is a JSON Schema object with type, properties and required.
    assertEquals(template.schema.type, "object");
    assert.ok(typeof template.schema.properties === "object", template.name);
    assert.ok(Array.isArray(template.schema.required), template.name);
  }
});

Deno.test("templates: image variables are the schema's contentMediaType image/* properties", () => {
  const registry = templateRegistry();
  assertEquals(registry.get("photo")!.imageVariables, ["photo"]);
  assertEquals(registry.get("note")!.imageVariables, []);
  assertEquals(registry.get("nope"), undefined);
});

Deno.test("templates: validate is 404 for an unknown name and 400 naming the variable", async () => {
  const registry = templateRegistry();
  const error = async (name: string, variables: unknown) => {
    try {
      await registry.validate(name, variables);
    } catch (e) {
      assert.ok(e instanceof AppError);
      return [e.status, e.code, e.message];
    }
    throw new Error("expected a rejection");
  };
  assertEquals(await error("nope", {}), [404, "not_found", "Template nope not found"]);
  assertEquals(await error("note", {}), [400, "invalid_request", "Variable body is required"]);
  assertEquals(await error("note", { body: 5 }), [
    400,
    "invalid_request",
    "Variable body must be string",
  ]);
  assertEquals(await error("note", { body: "x", colour: "red" }), [
    400,
    "invalid_request",
    "Variable colour is not a variable of this template",
  ]);
  assertEquals(await error("checklist", { items: [{ text: "a" }, { done: true }] }), [
    400,
    "invalid_request",
    "Variable items[1].text is required",
  ]);
  assertEquals(await error("checklist", { items: [{ text: "a", done: "yes" }] }), [
    400,
    "invalid_request",
    "Variable items[0].done must be boolean",
  ]);
  assertEquals(await error("split", { left: { body: "a" }, right: { body: "" } }), [
    400,
    "invalid_request",
    "Variable right.body must NOT have fewer than 1 characters",
  ]);
  assertEquals(await error("note", [1]), [
    400,
    "invalid_request",
    "Variables must be a JSON object",
  ]);
  assertEquals(await error("photo", { photo: "f", fit: "zoom" }), [
    400,
    "invalid_request",
    "Variable fit must be equal to one of the allowed values",
  ]);
});

Deno.test("templates: too deep or a picture that is not a file id is 400 naming the variable", async () => {
  const registry = templateRegistry();
  const message = async (name: string, variables: unknown) => {
    try {
      await registry.validate(name, variables);
    } catch (e) {
      assert.ok(e instanceof AppError && e.status === 400);
      return e.message;
    }
    return "accepted";
  };
  const arrays = (depth: number) => JSON.parse("[".repeat(depth) + "]".repeat(depth));
  // Issue 25: ~5,000 levels overflowed structuredClone; a depth past the limit is refused first.
  assertEquals(
    await message("note", { body: "x", a: arrays(5000) }),
    "Variable a is nested deeper than 32 levels",
  );
  assertEquals(
    await message("split", {
      left: { body: "a" },
      right: JSON.parse('{"a":'.repeat(33) + "1" + "}".repeat(33)),
    }),
    "Variable right is nested deeper than 32 levels",
  );
  assertEquals(
    await message("note", { body: "x", a: arrays(32) }),
    "Variable a is not a variable of this template",
  );
  for (const photo of ["../../secrets.json", "sample-photo.jpg", "", "0193b3a0-1c2d-7e4f-8a9b"]) {
    const expected = photo === ""
      ? "Variable photo must NOT have fewer than 1 characters"
      : "Variable photo must be a file id (a UUID)";
    assertEquals(await message("photo", { photo }), expected);
  }
  assertEquals(
    await message("photo", { photo: "0193B3A0-1C2D-7E4F-8A9B-0C1D2E3F4A5B" }),
    "accepted",
  );
  // The worker's check keeps file names: the shipped samples and goldens use them.
  assert.ok((await registry.check("photo", { photo: "sample-photo.jpg" }))?.ok);
});

Deno.test("templates: the depth walk is linear and stops at the first level too deep", () => {
  assertEquals(nestedDeeperThan("x", 0), false);
  assertEquals(nestedDeeperThan([], 0), true);
  assertEquals(nestedDeeperThan([[]], 2), false);
  assertEquals(nestedDeeperThan([[[]]], 2), true);
  assertEquals(nestedDeeperThan({ a: [1, { b: null }] }, 3), false);
  assertEquals(nestedDeeperThan({ a: [1, { b: {} }] }, 3), true);
  // Wide is fine: 200,000 siblings one level down.
  const wide = Array.from({ length: 200_000 }, (_, i) => ({ i }));
  const started = performance.now();
  assertEquals(nestedDeeperThan(wide, MAX_VARIABLE_DEPTH), false);
  assert.ok(performance.now() - started < 1000);
});

Deno.test("templates: valid variables come back with schema defaults, the caller's object untouched", async () => {
  const input = { items: [{ text: "a" }] };
  const variables = await templateRegistry().validate("checklist", input);
  assertEquals(variables, { items: [{ text: "a", done: false }] });
  assertEquals(input, { items: [{ text: "a" }] });
});

Deno.test("templates: every sample validates (the registry refuses to load otherwise)", async () => {
  const registry = templateRegistry();
  await registry.ready();
  for (const { name } of registry.list()) {
    assert.ok((await registry.check(name, registry.get(name)!.sample))?.ok, name);
  }
});

async function folder(files: Record<string, string>): Promise<URL> {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/broken`);
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/broken/${name}`, text);
  }
  return new URL(`file://${dir}/`);
}

const SCHEMA = {
  title: "T",
  description: "D",
  type: "object",
  properties: { a: { type: "string" } },
  required: ["a"],
};

Deno.test("templates: a malformed template folder fails the load instead of shipping", async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{
      "schema.json": JSON.stringify({ ...SCHEMA, title: undefined }),
      "sample.json": "{}",
      "template.liquid": "",
    }, /title and a description/],
    [
      { "schema.json": JSON.stringify(SCHEMA), "sample.json": '{"a": 1}', "template.liquid": "x" },
      /sample\.json: Variable a must be string/,
    ],
    [{
      "schema.json": JSON.stringify({ ...SCHEMA, properties: { a: { type: "strin" } } }),
      "sample.json": '{"a":"x"}',
      "template.liquid": "x",
    }, /Template broken: schema\.json: schema is invalid/],
    [{ "schema.json": JSON.stringify(SCHEMA), "sample.json": '{"a":"x"}' }, /No such file/],
  ];
  for (const [files, message] of cases) {
    const dir = await folder(files);
    let error: unknown;
    try {
      await loadTemplateRegistry(dir).ready();
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof Error && message.test(error.message), String(error));
    await Deno.remove(dir, { recursive: true });
  }
});
