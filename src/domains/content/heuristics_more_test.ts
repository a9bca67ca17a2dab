import { assertEquals } from "../../../tests/helpers/assert.ts";
import { headOf, withoutDates } from "./heuristics.ts";

Deno.test("heuristics: titles leave out dates and times and keep the first clause", () => {
  assertEquals(
    headOf("Anna's birthday 2026-12-05, order the cake from Café Lindner by Wednesday.", 80),
    "Anna's birthday",
  );
  assertEquals(headOf("Dentist on 2025-03-21 at 15:00", 80), "Dentist");
  assertEquals(headOf("Short line", 80), "Short line");
  assertEquals(
    withoutDates("Dentist on 2025-03-21 at 15:00, bring the card"),
    "Dentist, bring the card",
  );
});
