/**
 * Render workers run at a lower CPU priority than the request loop. On a machine with as many
 * workers as cores, a saturated pool otherwise takes its share of CPU from the event loop, and
 * `/health` or a device poll waits behind a render (issue 10: `/health` p99 under a saturated
 * pool). Linux schedules each thread on its own, so a worker lowers only itself: its thread id is
 * the last part of `/proc/thread-self`, and `setpriority` on a thread id renices that thread alone.
 * Renders still use every idle core; they only yield to the loop when both want the CPU.
 */
import os from "node:os";

/** The nice value of render workers (0 = the process's own, 19 = lowest). */
export const RENDER_NICE = 10;

/**
 * Lowers the calling thread's priority to `nice`; false where the platform has no per-thread
 * priority (not Linux) or refuses it. Never throws: a render worker works either way.
 */
export function lowerThreadPriority(nice = RENDER_NICE): boolean {
  if (Deno.build.os !== "linux") return false;
  try {
    const tid = Number(Deno.readLinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    os.setPriority(tid, nice);
    return os.getPriority(tid) === nice;
  } catch {
    return false;
  }
}

/** The calling thread's nice value (Linux), for tests. */
export function threadNice(): number | undefined {
  if (Deno.build.os !== "linux") return undefined;
  return os.getPriority(Number(Deno.readLinkSync("/proc/thread-self").split("/").pop()));
}
