/** Timing assertions that a shared, busy machine does not make flaky. */
import process from "node:process";
import { assert } from "./assert.ts";

/**
 * Milliseconds `work` took: the smaller of the wall clock and this process's CPU time. Other
 * processes on a loaded box stretch the first (the test workers share two cores); the engine's
 * helper threads can add to the second. Work that is too slow is too slow by both.
 */
export function workMs(work: () => unknown): number {
  const cpu = process.cpuUsage();
  const started = performance.now();
  work();
  return spent(started, cpu);
}

/** `workMs` of asynchronous work (nothing else may run in the process meanwhile). */
export async function asyncWorkMs(work: () => Promise<unknown>): Promise<number> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  return spent(started, cpu);
}

function spent(started: number, cpu: ReturnType<typeof process.cpuUsage>): number {
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return Math.min(wall, (used.user + used.system) / 1000);
}

/** Asserts that `work` takes less than `budgetMs` (see `workMs`). */
export function assertFast(what: string, work: () => unknown, budgetMs: number) {
  const ms = workMs(work);
  assert.ok(ms < budgetMs, `${what} took ${ms.toFixed(0)} ms, over ${budgetMs} ms`);
}
