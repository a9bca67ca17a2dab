import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { AppError } from "../../errors.ts";
import { fingerprint } from "../../infra/lib/canonical_json.ts";
import { checkModeRules, type CreateContentInput, idempotencyKeyOf } from "./inputs.ts";

const DEVICE = "0193a6e4-7d1c-7c3e-9a2b-1f2e3d4c5b6a";
const image = { type: "image" as const, contentType: "image/png" as const, sizeBytes: 10 };
const text = { type: "text" as const, text: "hello" };

function refused(input: CreateContentInput): string {
  try {
    checkModeRules(input);
  } catch (error) {
    assert.ok(error instanceof AppError);
    assertEquals([error.status, error.code], [400, "invalid_request"]);
    return error.message;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

Deno.test("SPEC 4.7 per-mode table: each mismatch is 400 invalid_request", () => {
  // auto: displayId forbidden, output required.
  assert.match(
    refused({ mode: "auto", displayId: DEVICE, output: {}, assets: [text] }),
    /takes no displayId/,
  );
  assert.match(refused({ mode: "auto", assets: [text] }), /needs an output profile/);
  assert.match(refused({ mode: "auto", output: null, assets: [text] }), /needs an output profile/);
  // hardcode: the same, and exactly one image.
  assert.match(
    refused({ mode: "hardcode", displayId: DEVICE, output: {}, assets: [image] }),
    /no displayId/,
  );
  assert.match(refused({ mode: "hardcode", assets: [image] }), /needs an output/);
  assert.match(refused({ mode: "hardcode", output: {}, assets: [] }), /exactly one image/);
  assert.match(
    refused({ mode: "hardcode", output: {}, assets: [image, image] }),
    /exactly one image/,
  );
  assert.match(
    refused({ mode: "hardcode", output: {}, assets: [image, text] }),
    /exactly one image/,
  );
  assert.match(refused({ mode: "hardcode", output: {}, assets: [text] }), /exactly one image/);
  // manual: displayId required, output forbidden.
  assert.match(
    refused({ mode: "manual", displayId: DEVICE, output: {}, assets: [image] }),
    /takes no output/,
  );
  assert.match(refused({ mode: "manual", assets: [image] }), /needs a displayId/);
  assert.match(refused({ mode: "manual", displayId: null, assets: [image] }), /needs a displayId/);
  assert.match(
    refused({ mode: "manual", displayId: DEVICE, assets: [image, text] }),
    /one image asset, or text/,
  );
  assert.match(
    refused({ mode: "manual", displayId: DEVICE, assets: [] }),
    /needs an image asset or text/,
  );
  assert.match(
    refused({
      mode: "manual",
      displayId: DEVICE,
      assets: [{ type: "link", url: "https://e.com" }],
    }),
    /image asset or text assets/,
  );
  // Accepted shapes.
  checkModeRules({
    mode: "auto",
    output: {},
    assets: [text, image, { type: "link", url: "https://e.com" }],
  });
  checkModeRules({ mode: "auto", output: {}, displayId: null, intent: "a clock" });
  checkModeRules({ mode: "hardcode", output: { preset: "default" }, assets: [image] });
  checkModeRules({ mode: "manual", displayId: DEVICE, output: null, assets: [image] });
  checkModeRules({ mode: "manual", displayId: DEVICE, assets: [text, text] });
});

Deno.test("asset rules: counts, empty and long text, link syntax, intent and title", () => {
  assert.match(
    refused({ mode: "auto", output: {} }),
    /needs an intent, a title or at least one asset/,
  );
  assert.match(
    refused({ mode: "auto", output: {}, assets: Array(11).fill(image) }),
    /At most 10 image/,
  );
  const links = Array(6).fill({ type: "link", url: "https://e.com" });
  assert.match(refused({ mode: "auto", output: {}, assets: links }), /At most 5 link/);
  assert.match(
    refused({ mode: "auto", output: {}, assets: [{ type: "text", text: "  " }] }),
    /must not be empty/,
  );
  assert.match(
    refused({ mode: "auto", output: {}, assets: [{ type: "text", text: "x".repeat(20_001) }] }),
    /20001 characters; at most 20000/,
  );
  checkModeRules({
    mode: "auto",
    output: {},
    assets: [{ type: "text", text: "😀".repeat(20_000) }],
  });
  assert.match(
    refused({ mode: "auto", output: {}, assets: [{ type: "link", url: "file:///etc/passwd" }] }),
    /assets\.0\.url: Link scheme file/,
  );
  assert.match(refused({ mode: "auto", output: {}, intent: "x".repeat(2001) }), /intent is longer/);
  assert.match(refused({ mode: "auto", output: {}, title: "x".repeat(201) }), /title is longer/);
});

Deno.test("Idempotency-Key: absent, 8-128 printable ASCII (space included), else 400", () => {
  const key = (value?: string) =>
    idempotencyKeyOf(new Headers(value === undefined ? {} : { "idempotency-key": value }));
  assertEquals(key(), undefined);
  assertEquals(key("12345678"), "12345678");
  assertEquals(key("a b c d e"), "a b c d e");
  assertEquals(key("~".repeat(128)), "~".repeat(128));
  for (const bad of ["1234567", "x".repeat(129), "abcdefgh\u00e9", "abcdefgh\u007f"]) {
    assert.throws(() => key(bad), (e: unknown) => e instanceof AppError && e.status === 400, bad);
  }
});

Deno.test("fingerprints ignore key order and undefined fields", () => {
  assertEquals(
    fingerprint({ a: 1, b: [1, { c: 2, d: undefined }] }),
    fingerprint({ b: [1, { c: 2 }], a: 1 }),
  );
  assert.notEqual(fingerprint({ a: 1 }), fingerprint({ a: 2 }));
  assert.notEqual(fingerprint({ a: [1, 2] }), fingerprint({ a: [2, 1] }));
});
