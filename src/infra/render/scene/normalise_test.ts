import { AppError } from "../../../errors.ts";
import { assert, assertEquals } from "../../../../tests/helpers/assert.ts";
import { normaliseScene, normaliseSceneEnvelope, parseScene } from "./normalise.ts";
import { SCENE_MEDIA_TYPE } from "./types.ts";

const FRAME = { x: 0, y: 0, width: 100, height: 40 };

/** A valid Scene with one element of each type, for the cases to break. */
function scene(): Record<string, unknown> {
  return {
    version: 1,
    viewport: { width: 800, height: 480 },
    background: "#FFFFFF",
    elements: [
      { id: "t", type: "text", frame: { ...FRAME }, properties: { text: "Hello" } },
      { id: "i", type: "image", frame: { ...FRAME }, properties: { fileId: "file-1" } },
      { id: "s", type: "shape", frame: { ...FRAME }, properties: {} },
    ],
  };
}

function message(input: unknown, options = {}): string {
  const result = normaliseScene(input, options);
  if (result.ok) throw new Error("expected the Scene to be refused");
  return result.message;
}

// deno-lint-ignore no-explicit-any
const el = (s: any, i: number) => s.elements[i];

Deno.test("scene: a valid Scene comes back equal, and the input is never modified", () => {
  const input = scene();
  const before = structuredClone(input);
  const result = normaliseScene(input);
  assert.ok(result.ok);
  assertEquals(result.scene, before);
  assertEquals(input, before);
});

Deno.test("scene rule 1: frames are integers in viewport space, with a positive size", () => {
  const cases: [(s: Record<string, unknown>) => void, string][] = [
    [
      (s) => el(s, 0).frame.x = 1.5,
      "Scene elements[0].frame.x must be an integer between -1000000 and 1000000",
    ],
    [
      (s) => el(s, 0).frame.y = "3",
      "Scene elements[0].frame.y must be an integer between -1000000 and 1000000",
    ],
    [
      (s) => el(s, 1).frame.width = 0,
      "Scene elements[1].frame.width must be a positive integer up to 1000000",
    ],
    [
      (s) => el(s, 2).frame.height = -4,
      "Scene elements[2].frame.height must be a positive integer up to 1000000",
    ],
    [
      (s) => el(s, 0).frame.x = 2_000_000,
      "Scene elements[0].frame.x must be an integer between -1000000 and 1000000",
    ],
    [(s) => delete el(s, 0).frame.width, "Scene elements[0].frame.width is required"],
    [(s) => delete el(s, 0).frame, "Scene elements[0].frame is required"],
    [(s) => el(s, 0).frame = [0, 0, 1, 1], "Scene elements[0].frame must be an object"],
  ];
  for (const [breakIt, expected] of cases) {
    const s = scene();
    breakIt(s);
    assertEquals(message(s), expected);
  }
  // Negative positions are fine: out-of-bounds frames are clipped when drawn (rule 4).
  const s = scene();
  el(s, 0).frame = { x: -50, y: 470, width: 100, height: 40 };
  assert.ok(normaliseScene(s).ok);
});

Deno.test("scene rule 2: element ids are unique", () => {
  const s = scene();
  el(s, 2).id = "t";
  assertEquals(message(s), 'Scene element id "t" is used by elements[0] and elements[2]');
});

Deno.test("scene rule 5: invalid optional values degrade to their defaults", () => {
  const s = scene();
  Object.assign(el(s, 0).properties, {
    fontSize: "big",
    fontWeight: "bold",
    color: "red",
    align: "justify",
  });
  Object.assign(el(s, 1).properties, { fit: "zoom" });
  Object.assign(el(s, 2).properties, {
    shapeType: "star",
    fill: 0xff0000,
    cornerRadius: -3,
    strokeColor: "blue",
    strokeWidth: "2",
  });
  s.background = "white";
  const result = normaliseScene(s);
  assert.ok(result.ok);
  assertEquals(result.scene.background, "#FFFFFF");
  assertEquals(el(result.scene, 0).properties, {
    text: "Hello",
    fontSize: 16,
    fontWeight: 400,
    color: "#000000",
    align: "leading",
  });
  assertEquals(el(result.scene, 1).properties, { fileId: "file-1", fit: "contain" });
  assertEquals(el(result.scene, 2).properties, {
    shapeType: "rect",
    fill: "#000000",
    cornerRadius: 0,
    strokeColor: null,
    strokeWidth: 0,
  });
});

Deno.test("scene rule 5: valid values are kept as written", () => {
  const s = scene();
  const text = {
    text: "x",
    fontSize: 12.5,
    fontWeight: 650,
    color: "#ff000080",
    align: "trailing",
  };
  const shape = {
    shapeType: "ellipse",
    fill: "#abc",
    cornerRadius: 4,
    strokeColor: "#000",
    strokeWidth: 2,
  };
  el(s, 0).properties = { ...text };
  el(s, 2).properties = { ...shape };
  el(s, 1).properties.fit = "stretch";
  const result = normaliseScene(s);
  assert.ok(result.ok);
  assertEquals(el(result.scene, 0).properties, text);
  assertEquals(el(result.scene, 2).properties, shape);
  assertEquals(el(result.scene, 1).properties.fit, "stretch");
});

Deno.test("scene rule 5: a missing or unusable required field is a 400", () => {
  const cases: [(s: Record<string, unknown>) => void, string][] = [
    [(s) => delete el(s, 0).properties.text, "Scene elements[0].properties.text is required"],
    [(s) => el(s, 0).properties.text = 42, "Scene elements[0].properties.text must be a string"],
    [(s) => delete el(s, 1).properties.fileId, "Scene elements[1].properties.fileId is required"],
    [
      (s) => el(s, 1).properties.fileId = "",
      "Scene elements[1].properties.fileId must be a non-empty string",
    ],
    [(s) => delete el(s, 2).properties, "Scene elements[2].properties is required"],
    [(s) => el(s, 2).properties = "x", "Scene elements[2].properties must be an object"],
    [(s) => delete el(s, 0).id, "Scene elements[0].id is required"],
    [(s) => el(s, 0).id = 7, "Scene elements[0].id must be a string of 1 to 128 characters"],
    [(s) => delete el(s, 0).type, "Scene elements[0].type is required"],
    [(s) => (s.elements as unknown[])[1] = "x", "Scene elements[1] must be an object"],
    [(s) => delete s.viewport, "Scene viewport is required"],
    [(s) => delete s.elements, "Scene elements is required"],
    [(s) => s.elements = {}, "Scene elements must be an array"],
    [(s) => delete s.version, "Scene version is required"],
    [(s) => s.version = 2, "Scene version 2 is not supported; use 1"],
    [
      (s) => el(s, 0).properties.text = "x".repeat(10_001),
      "Scene elements[0].properties.text is longer than 10000 characters",
    ],
  ];
  for (const [breakIt, expected] of cases) {
    const s = scene();
    breakIt(s);
    assertEquals(message(s), expected);
  }
  assertEquals(message("scene"), "Scene data must be a JSON object");
});

Deno.test("scene: the viewport is 1..8192 a side and within the pixel limit", () => {
  const sized = (width: unknown, height: unknown) => ({ ...scene(), viewport: { width, height } });
  assertEquals(message(sized(8193, 10)), "Scene viewport.width must be an integer from 1 to 8192");
  assertEquals(message(sized(10, 0)), "Scene viewport.height must be an integer from 1 to 8192");
  assertEquals(message(sized(10.5, 10)), "Scene viewport.width must be an integer from 1 to 8192");
  assertEquals(message(sized(2001, 2000)), "Scene viewport 2001x2000 is over 4000000 pixels");
  assert.ok(normaliseScene(sized(2000, 2000)).ok);
  assert.ok(normaliseScene(sized(8192, 488)).ok);
  assertEquals(
    message(sized(100, 100), { maxPixels: 9999 }),
    "Scene viewport 100x100 is over 9999 pixels",
  );
});

Deno.test("scene: element count is bounded", () => {
  const s = scene();
  s.elements = Array.from({ length: 1001 }, (_, i) => ({ id: `e${i}`, type: "future" }));
  assertEquals(message(s), "Scene has 1001 elements; at most 1000 are allowed");
});

Deno.test("scene rule 6: unknown properties and element types are kept as they came", () => {
  const s = scene();
  s.theme = { accent: "#123456" };
  el(s, 0).properties.shadow = { blur: 4 };
  el(s, 0).note = "kept";
  (s.elements as unknown[]).push({ id: "chart", type: "sparkline", values: [1, 2, 3] });
  const result = normaliseScene(s);
  assert.ok(result.ok);
  assertEquals(result.scene.theme, { accent: "#123456" });
  assertEquals(el(result.scene, 0).properties.shadow, { blur: 4 });
  assertEquals(el(result.scene, 0).note, "kept");
  assertEquals(el(result.scene, 3), { id: "chart", type: "sparkline", values: [1, 2, 3] });
});

Deno.test("scene rule 7: a secret anywhere is refused before storage, without echoing it", () => {
  const pat = `pat_${"Ab1".repeat(13)}x`;
  const cases: [(s: Record<string, unknown>) => void, string][] = [
    [
      (s) => el(s, 0).properties.text = `my token ${pat}`,
      "a personal access token at elements[0].properties.text",
    ],
    [
      (s) => el(s, 0).properties.extra = { jwt: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2ln" },
      "an access token at elements[0].properties.extra.jwt",
    ],
    [
      (s) =>
        (s.elements as unknown[]).push({
          id: "x",
          type: "future",
          upload: { policy: "p", signature: "s" },
        }),
      "a presigned upload policy at elements[3].upload",
    ],
    [(s) => s.key = "-----BEGIN EC PRIVATE KEY-----", "a private key at key"],
    [
      (s) => el(s, 1).properties.source = "uploads/0193b3a0-1c2d-7e4f-8a9b-0c1d2e3f4a5b/d/f",
      "a private object key at elements[1].properties.source",
    ],
    [
      (s) => s.integrations = { stripe: "sk_test_" + "x".repeat(24) },
      "a Stripe secret key at integrations.stripe",
    ],
  ];
  for (const [breakIt, expected] of cases) {
    const s = scene();
    breakIt(s);
    const text = message(s);
    assertEquals(text, `Scene must not contain ${expected}`);
    assert.ok(!text.includes(pat));
  }
});

Deno.test("scene: an image's signed url (API responses) is dropped, only fileId is stored", () => {
  const s = scene();
  el(s, 1).properties.url = "https://store.example/objects/x?expires=1&signature=abc";
  const result = normaliseScene(s);
  assert.ok(result.ok);
  assertEquals(el(result.scene, 1).properties, { fileId: "file-1" });
});

Deno.test("scene: parseScene throws a 400 AppError; the envelope is checked too", () => {
  let error: unknown;
  try {
    parseScene({ version: 1 });
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof AppError);
  assertEquals([error.status, error.code, error.message], [
    400,
    "invalid_request",
    "Scene viewport is required",
  ]);
  const envelope = { mediaType: SCENE_MEDIA_TYPE, version: 1, data: scene() };
  assert.ok(normaliseSceneEnvelope(envelope).ok);
  assert.ok(
    normaliseSceneEnvelope({
      ...envelope,
      mediaType: "application/vnd.service.scene+json; version=1",
    }).ok,
  );
  assertEquals(normaliseSceneEnvelope({ ...envelope, mediaType: "application/json" }), {
    ok: false,
    message: `Scene mediaType must be ${SCENE_MEDIA_TYPE}`,
  });
  assertEquals(normaliseSceneEnvelope({ ...envelope, version: 2 }), {
    ok: false,
    message: "Scene version must be 1",
  });
});
