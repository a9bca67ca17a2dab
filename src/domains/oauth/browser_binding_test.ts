import { assertEquals } from "../../../tests/helpers/assert.ts";
import { bindingCookie, bindingsOf, clearedBindingCookie } from "./browser_binding.ts";

const B = "a".repeat(43);

Deno.test("binding cookie: Lax for Google (Secure only over https), None; Secure for Apple", () => {
  assertEquals(
    bindingCookie("google", B, false),
    `dds_oauth_google=${B}; Path=/auth/oauth/; Max-Age=600; HttpOnly; SameSite=Lax`,
  );
  assertEquals(
    bindingCookie("google", B, true),
    `dds_oauth_google=${B}; Path=/auth/oauth/; Max-Age=600; HttpOnly; SameSite=Lax; Secure`,
  );
  assertEquals(
    bindingCookie("apple", B, false),
    `dds_oauth_apple=${B}; Path=/auth/oauth/; Max-Age=600; HttpOnly; SameSite=None; Secure`,
  );
  assertEquals(
    clearedBindingCookie("apple", true),
    "dds_oauth_apple=; Path=/auth/oauth/; Max-Age=0; HttpOnly; SameSite=None; Secure",
  );
});

Deno.test("bindings: every value of the provider's cookie, nothing else", () => {
  const C = "b".repeat(43);
  assertEquals(bindingsOf(null, "google"), []);
  assertEquals(bindingsOf("", "google"), []);
  assertEquals(bindingsOf(`dds_oauth_apple=${B}`, "google"), []);
  assertEquals(bindingsOf(`x=1; dds_oauth_google=${B}; y=2`, "google"), [B]);
  assertEquals(bindingsOf(`dds_oauth_google=${C};dds_oauth_google=${B}`, "google"), [C, B]);
  // Not a binding: too short, or characters outside base64url.
  assertEquals(bindingsOf("dds_oauth_google=abc", "google"), []);
  assertEquals(bindingsOf(`dds_oauth_google=${B}%27`, "google"), []);
  assertEquals(bindingsOf(`xdds_oauth_google=${B}`, "google"), []);
  // At most four are looked at.
  const many = Array.from({ length: 10 }, () => `dds_oauth_google=${B}`).join("; ");
  assertEquals(bindingsOf(many, "google").length, 4);
});
