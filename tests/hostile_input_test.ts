/**
 * Input of a hostile shape over HTTP (issue 25). Finding 5: template variables nested past the
 * depth limit, or a picture variable that is not a file id, are 400 naming the variable
 * (CONTRACT.md "Content pipeline") before anything is cloned, queried or rendered. Finding 6: a
 * live PAT glued to other text, a lowercase PEM header or a JWT with spaced dots is refused in a
 * Scene and in what a Scene is made of (SPEC 2.11 rule 7), and nothing is stored.
 */
import { assert, assertEquals, expectError } from "./helpers/assert.ts";
import { registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { account, expectCode } from "./helpers/targetless.ts";

const suite = serverSuite("hostile input");

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

const JWT =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwic2lkIjoiYWJjIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

suite.test(
  "rule 7: a live PAT glued to text, a lowercase PEM header, a spaced JWT are refused",
  async (api, s) => {
    const acct = await account(api, "sec");
    const leaks: [string, RegExp][] = [
      ["x_" + acct.pat, /a personal access token/],
      ["-----begin private key-----", /a private key/],
      [JWT.replaceAll(".", " . "), /an access token/],
    ];
    for (const [text, kind] of leaks) {
      // What a Scene is made of: a content's text asset, on both surfaces.
      for (const mount of [acct.app, acct.sdk]) {
        const error = expectCode(
          await acct.call(mount, "POST", "/contents", {
            body: { mode: "auto", output: {}, assets: [{ type: "text", text }] },
          }),
          400,
          "invalid_request",
        );
        assert.match(error.message, kind);
        assert.match(error.message, /at assets\[0\]\.text$/);
        assert.equal(error.message.includes(acct.pat), false);
      }
      // A Scene itself (its preview runs the same normaliser as every stored Scene).
      const scene = {
        version: 1,
        viewport: { width: 120, height: 80 },
        background: "#FFFFFF",
        elements: [{
          id: "t",
          type: "text",
          frame: { x: 4, y: 4, width: 112, height: 30 },
          properties: { text },
        }],
      };
      const error = expectCode(
        await acct.call(acct.sdk, "POST", "/scenes/preview", { body: { scene } }),
        400,
        "invalid_request",
      );
      assert.match(error.message, kind);
    }
    const contents = await s.app.services.db.selectFrom("targetless_contents").select("id")
      .where("user_id", "=", acct.userId).execute();
    assertEquals(contents, []);
  },
);

suite.end();
