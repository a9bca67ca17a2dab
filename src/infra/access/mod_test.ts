/** The access module's rule table, and its refusals by default. */
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { AppError } from "../../errors.ts";
import { found, missing, owned, type ResourceKind, RESOURCES } from "./mod.ts";

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
  assertEquals(owned("device", device, ME), device);
  const content = { id: "c", user_id: ME };
  assertEquals(owned("content", content, ME), content);
});

Deno.test("owned: a device answers 404 when unknown, 403 when another user's (SPEC 4.5)", () => {
  assertEquals(refusal(() => owned("device", undefined, ME)), {
    status: 404,
    code: "not_found",
    message: "Device not found",
  });
  assertEquals(refusal(() => owned("device", { owner_id: OTHER }, ME)), {
    status: 403,
    code: "forbidden",
    message: "You do not own this device",
  });
  // An unbound device has no owner: refused like another user's.
  assertEquals(refusal(() => owned("device", { owner_id: null }, ME)).status, 403);
});

Deno.test("owned: every other kind hides another user's resource behind 404 (SPEC 5.8)", () => {
  for (const kind of Object.keys(RESOURCES) as ResourceKind[]) {
    if (kind === "device") continue;
    const absent = refusal(() => owned(kind, null, ME));
    const theirs = refusal(() => owned(kind, { user_id: OTHER }, ME));
    assertEquals(theirs, absent, kind);
    assertEquals(theirs.status, 404, kind);
  }
  assertEquals(
    refusal(() => owned("presentation", { user_id: OTHER }, ME)).code,
    "presentation_not_found",
  );
});

Deno.test("deny by default: an unknown kind, or a row without an owner, is refused", () => {
  const unknown = "album" as ResourceKind;
  assertEquals(refusal(() => owned(unknown, { user_id: ME }, ME)).status, 404);
  assertEquals(refusal(() => owned(unknown, { owner_id: ME }, ME)).status, 404);
  assertEquals(
    refusal(() => {
      throw missing(unknown);
    }).message,
    "Not found",
  );
  assertEquals(refusal(() => owned("content", {} as { user_id?: string }, ME)).status, 404);
  assertEquals(refusal(() => owned("content", { user_id: "" }, "")).status, 404);
  // A key of Object.prototype is not a kind either.
  assertEquals(refusal(() => owned("toString" as ResourceKind, { user_id: ME }, ME)).status, 404);
});

Deno.test("found and missing: a caller-filtered lookup's miss is the kind's 404", () => {
  assertEquals(found("session", { id: "s" }), { id: "s" });
  assertEquals(refusal(() => found("session", undefined)), {
    status: 404,
    code: "not_found",
    message: "Session not found",
  });
  assertEquals(
    refusal(() => {
      throw missing("push", "Push not found or not rendered");
    }),
    {
      status: 404,
      code: "not_found",
      message: "Push not found or not rendered",
    },
  );
});
