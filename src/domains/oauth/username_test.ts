import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { deriveUsername } from "./username.ts";

const RULE = /^[A-Za-z0-9_.-]{3,32}$/;

Deno.test("derived username is the local part plus the suffix", () => {
  assertEquals(deriveUsername("Jane.Doe@example.com", "abc123"), "jane.doe_abc123");
});

Deno.test("derived username drops characters outside the username rule and caps the length", () => {
  assertEquals(deriveUsername("a+tag@example.com", "zzzzzz"), "atag_zzzzzz");
  const long = deriveUsername(`${"x".repeat(80)}@example.com`);
  assert.match(long, RULE);
  assertEquals(deriveUsername("+++@example.com", "q1w2e3"), "user_q1w2e3");
});

Deno.test("derived usernames differ by their random suffix", () => {
  const names = new Set(Array.from({ length: 50 }, () => deriveUsername("same@example.com")));
  assertEquals(names.size, 50);
  for (const name of names) assert.match(name, RULE);
});
