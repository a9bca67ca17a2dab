import { assertEquals } from "../../../tests/helpers/assert.ts";
import { formatDuration, Progress } from "./progress.ts";

Deno.test("progress: a line per step with counts, elapsed time and an ETA from the rate", () => {
  const lines: string[] = [];
  let now = 0;
  const p = new Progress("register", { total: 4, write: (l) => lines.push(l), now: () => now });
  now = 1000;
  p.step("SN-1");
  now = 2000;
  p.step("SN-2");
  now = 4000;
  p.step("SN-3", 2);
  p.finish();
  assertEquals(lines, [
    "register  1/4 (25%)  1.0s  ETA 3.0s  SN-1",
    "register  2/4 (50%)  2.0s  ETA 2.0s  SN-2",
    "register  4/4 (100%)  4.0s  SN-3",
    "register  done: 4 in 4.0s",
  ]);
});

Deno.test("progress: without a total, counts and elapsed time only", () => {
  const lines: string[] = [];
  const p = new Progress("migrate", { write: (l) => lines.push(l), now: () => 0 });
  p.step("0001_accounts.sql");
  assertEquals(lines, ["migrate  1  0.0s  0001_accounts.sql"]);
});

Deno.test("progress: durations read at a glance", () => {
  assertEquals(
    [0.42, 12.4, 185, 3725, -1, Infinity].map(formatDuration),
    ["0.4s", "12s", "3m05s", "1h02m", "?", "?"],
  );
});
