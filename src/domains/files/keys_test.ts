/** Object keys of every domain keep their documented shapes (SPEC 4.6, docs/decisions.md). */
import { assertEquals } from "../../../tests/helpers/assert.ts";
import { isSafeKey } from "../../infra/storage/keys.ts";
import * as fileKeys from "./keys.ts";
import * as pushKeys from "../pushes/keys.ts";
import * as targetlessKeys from "../targetless/keys.ts";

Deno.test("object keys: each domain's shapes, all safe, each under its user's prefixes", () => {
  const [u, d, p, f] = ["u1", "d1", "p1", "f1"];
  assertEquals(pushKeys.renderPrefix(u, d, p), "render/u1/d1/p1/");
  assertEquals(fileKeys.uploadKey(u, d, f), "uploads/u1/d1/f1");
  const confirmed = fileKeys.confirmedKey(u, "uploads/u1/raw-items/f1", f);
  assertEquals(confirmed.startsWith("files/u1/raw-items/f1/"), true);
  const rendition = targetlessKeys.renditionKey({ user_id: u, presentation_id: p, id: "r1" });
  assertEquals(rendition, "renditions/u1/p1/r1.png");
  const userPrefixes = [pushKeys, fileKeys, targetlessKeys].flatMap((k) => k.userPrefixes(u));
  for (
    const key of [pushKeys.renderPrefix(u, d, p), fileKeys.uploadKey(u, d, f), confirmed, rendition]
  ) {
    assertEquals(isSafeKey(key.replace(/\/$/, "")), true, key);
    assertEquals(userPrefixes.some((prefix) => key.startsWith(prefix)), true, key);
  }
  const devicePrefixes = [...pushKeys.devicePrefixes(u, d), ...fileKeys.scopePrefixes(u, d)];
  for (const key of [pushKeys.renderPrefix(u, d, p), fileKeys.uploadKey(u, d, f)]) {
    assertEquals(devicePrefixes.some((prefix) => key.startsWith(prefix)), true, key);
  }
});
