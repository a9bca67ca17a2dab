/**
 * Template variables of a hostile shape over HTTP (issue 25, finding 5; CONTRACT.md "Content
 * pipeline": variables that do not match the schema are 400 `{error}` naming the variable).
 * Nesting past the depth limit and a picture variable that is not a file id are refused before
 * anything is cloned, queried or rendered.
 */
import { assertEquals, expectError } from "./helpers/assert.ts";
import { registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";

const suite = serverSuite("template variables");

/** `{"body":"x","<name>":[[[…]]]}` as raw JSON: `JSON.stringify` would recurse as deep. */
function nested(name: string, depth: number, open = "[", leaf = "", close = "]") {
  return `{"body":"x","${name}":${open.repeat(depth)}${leaf}${close.repeat(depth)}}`;
}

suite.test("preview: variables nested too deep are 400 naming the variable", async (api) => {
  const { accessToken: token } = await registerUser(api);
  const post = (name: string, raw: string) =>
    api.post(`/api/templates/${name}/preview`, {
      token,
      raw,
      headers: { "content-type": "application/json" },
    });
  // The reviewer's reproduction: ~5,000 levels overflowed structuredClone (500).
  expectError(await post("note", nested("a", 5000)), 400, /^Variable a is nested deeper than 32/);
  expectError(
    await post("note", nested("body2", 100_000, '{"k":', "0", "}")),
    400,
    /^Variable body2 is nested deeper than 32/,
  );
  // A variable the template has: the depth is checked before the schema.
  expectError(
    await post("agenda", `{"date":"2026-01-01","events":${"[".repeat(40)}${"]".repeat(40)}}`),
    400,
    /^Variable events is nested deeper than 32/,
  );
  // Within the limit, the schema speaks as before.
  expectError(
    await post("note", nested("a", 32)),
    400,
    /^Variable a is not a variable of this template$/,
  );
});

suite.test("preview: a picture variable that is not a file id is 400 naming it", async (api) => {
  const { accessToken: token } = await registerUser(api);
  const post = (body: unknown) => api.post("/api/templates/photo/preview", { token, body });
  for (const photo of ["../../secrets.json", "sample-photo.jpg", "x'; select 1; --", "0"]) {
    expectError(await post({ photo }), 400, /^Variable photo must be a file id \(a UUID\)$/);
  }
  expectError(await post({ photo: 5 }), 400, /^Variable photo must be string$/);
  // A well-formed id of no file of the caller's: refused by name as before, never a 500.
  const reply = await post({ photo: "0193b3a0-1c2d-7e4f-8a9b-0c1d2e3f4a5b" });
  assertEquals(reply.status, 400);
  expectError(reply, 400, /photo/);
});

suite.end();
