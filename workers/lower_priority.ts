/**
 * The render worker's first import: its thread yields the CPU to the request loop when both want
 * it (src/infra/render/thread_priority.ts), from before its heavy imports (sharp, satori, the
 * fonts) are evaluated. A worker that starts for a burst then also yields to the warm worker
 * already rendering it (issue 26: 12 photo pushes 19.6-22.7 -> 20.6-26.3 pushes/s, 8 runs each).
 */
import { lowerThreadPriority } from "../src/infra/render/thread_priority.ts";

lowerThreadPriority();
