import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { LastWrites } from "./last_writes.ts";

Deno.test("last writes: polls that come while a report is written do not write it again", async () => {
  const writes = new LastWrites(60_000);
  let written = 0;
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  const write = async () => {
    written++;
    await held;
  };
  const polls = Array.from({ length: 64 }, () => writes.write("device-a", "s1", write));
  // Another display's report is its own.
  const other = writes.write("device-b", "s1", () => {
    written++;
    return Promise.resolve();
  });
  release();
  await Promise.all([...polls, other]);
  assertEquals(written, 2);
});

Deno.test("last writes: a changed state is written at once, the same one again after the interval", async () => {
  let now = 1_000;
  const writes = new LastWrites(60_000, 10_000, () => now);
  const states: string[] = [];
  const write = (state: string) =>
    writes.write("d", state, () => Promise.resolve(states.push(state)));
  await write("s1");
  await write("s1");
  await write("s2");
  now += 59_999;
  await write("s2");
  now += 1;
  await write("s2");
  assertEquals(states, ["s1", "s2", "s2"]);
});

Deno.test("last writes: a failed write gives its entry back and the next poll writes", async () => {
  const writes = new LastWrites(60_000);
  await assert.rejects(
    writes.write("d", "s1", () => Promise.reject(new Error("database unreachable"))),
    /database unreachable/,
  );
  let written = 0;
  await writes.write("d", "s1", () => Promise.resolve(written++));
  assertEquals(written, 1);
});

Deno.test("last writes: bounded, cleared when full", async () => {
  const writes = new LastWrites(60_000, 3);
  let written = 0;
  const write = (key: string) => writes.write(key, "s", () => Promise.resolve(written++));
  for (const key of ["a", "b", "c", "d"]) await write(key);
  // "a" was forgotten when the fourth key came: written again.
  await write("a");
  assertEquals(written, 5);
});
