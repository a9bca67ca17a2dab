/** The access module's rules per kind, and its refusals by default. */
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { AppError } from "../../errors.ts";
import { found, hidden, missing, owned, type Resource, resource } from "./mod.ts";

// Kinds of the test's own (a domain declares the service's beside its checks): the two rules.
const DEVICE = resource("test-device", {
  missing: { code: "not_found", message: "Device not found" },
  notOwned: { code: "forbidden", message: "You do not own this device" },
});
const CONTENT = hidden("test-content", "Content not found");
const PRESENTATION = hidden(
  "test-presentation",
  "Presentation not found",
  "presentation_not_found",
);
const SESSION = hidden("test-session", "Session not found");
const PUSH = hidden("test-push", "Push not found");

function refusal(fn: () => unknown): { status: number; code: string; message: string } {
  try {
    fn();
  } catch (error) {
    assert(error instanceof AppError);
    return { status: error.status, code: error.code, message: error.message };
  }
  throw new Error("expected a refusal");
}

const ME = "user-a";
const OTHER = "user-b";

Deno.test("owned: the owner gets the row back", () => {
  const device = { id: "d", owner_id: ME };
  assertEquals(owned(DEVICE, device, ME), device);
  const content = { id: "c", user_id: ME };
  assertEquals(owned(CONTENT, content, ME), content);
});

Deno.test("owned: a device answers 404 when unknown, 403 when another user's (SPEC 4.5)", () => {
  assertEquals(refusal(() => owned(DEVICE, undefined, ME)), {
    status: 404,
    code: "not_found",
    message: "Device not found",
  });
  assertEquals(refusal(() => owned(DEVICE, { owner_id: OTHER }, ME)), {
    status: 403,
    code: "forbidden",
    message: "You do not own this device",
  });
  // An unbound device has no owner: refused like another user's.
  assertEquals(refusal(() => owned(DEVICE, { owner_id: null }, ME)).status, 403);
});

Deno.test("owned: a hidden kind answers 404 for another user's resource too (SPEC 5.8)", () => {
  for (const kind of [CONTENT, SESSION, PUSH]) {
    const absent = refusal(() => owned(kind, null, ME));
    const theirs = refusal(() => owned(kind, { user_id: OTHER }, ME));
    assertEquals(theirs, absent, kind.kind);
    assertEquals(theirs.status, 404, kind.kind);
  }
  assertEquals(
    refusal(() => owned(PRESENTATION, { user_id: OTHER }, ME)).code,
    "presentation_not_found",
  );
});

Deno.test("a kind is declared once", () => {
  assert.throws(() => hidden("test-push", "Again"), /declared twice/);
});

Deno.test("deny by default: an unknown kind, or a row without an owner, is refused", () => {
  // Not declared through resource() or hidden(), though shaped like a kind (or a copy of one).
  const unknown = { ...CONTENT, kind: "album" } as Resource;
  const forged = { ...CONTENT } as Resource;
  assertEquals(refusal(() => owned(forged, { user_id: ME }, ME)).status, 404);
  assertEquals(refusal(() => owned(unknown, { user_id: ME }, ME)).status, 404);
  assertEquals(refusal(() => owned(unknown, { owner_id: ME }, ME)).status, 404);
  assertEquals(
    refusal(() => {
      throw missing(unknown);
    }).message,
    "Not found",
  );
  assertEquals(refusal(() => owned(CONTENT, {} as { user_id?: string }, ME)).status, 404);
  assertEquals(refusal(() => owned(CONTENT, { user_id: "" }, "")).status, 404);
  // Nor is something that is not a kind at all.
  assertEquals(
    refusal(() => owned("content" as unknown as Resource, { user_id: ME }, ME)).status,
    404,
  );
  assertEquals(
    refusal(() => owned(undefined as unknown as Resource, { user_id: ME }, ME)).status,
    404,
  );
});

Deno.test("found and missing: a caller-filtered lookup's miss is the kind's 404", () => {
  assertEquals(found(SESSION, { id: "s" }), { id: "s" });
  assertEquals(refusal(() => found(SESSION, undefined)), {
    status: 404,
    code: "not_found",
    message: "Session not found",
  });
  assertEquals(
    refusal(() => {
      throw missing(PUSH, "Push not found or not rendered");
    }),
    {
      status: 404,
      code: "not_found",
      message: "Push not found or not rendered",
    },
  );
});
