/**
 * One busy thread of bench/bare_busy.ts: while on, tasks of ~10 ms of CPU over a frame-sized
 * buffer, back to back, at the render workers' priority (src/infra/render/thread_priority.ts).
 */
import { lowerThreadPriority } from "../src/infra/render/thread_priority.ts";

lowerThreadPriority();

const TASK_MS = 10;
const frame = new Uint8Array(800 * 480 * 4);
let busy = false;

function task(): void {
  if (!busy) return;
  const end = performance.now() + TASK_MS;
  let value = 0;
  while (performance.now() < end) {
    for (let i = 0; i < frame.length; i += 64) frame[i] = value++;
  }
  setTimeout(task, 0);
}

addEventListener("message", (event) => {
  const wasBusy = busy;
  busy = (event as MessageEvent<boolean>).data;
  if (busy && !wasBusy) task();
});
