/**
 * Piscina worker entry: all CPU work of a push render runs here, off the request loop.
 * Failures come back as `{ok: false, code}` values (custom errors lose their fields crossing
 * threads); the three output buffers are transferred, not copied.
 */
import { renderImageBitmaps } from "../src/render/bitmaps.ts";
import {
  type RenderTask,
  WARM_UP_PNG,
  withTransfer,
  type WorkerReply,
} from "../src/render/protocol.ts";

/** Runs one task; the reply's buffers move to the calling thread. */
export default function render(task: RenderTask): WorkerReply {
  const source = task.kind === "warm" ? WARM_UP_PNG : task.source;
  const result = renderImageBitmaps(source);
  if (!result.ok) return { ok: false, code: result.code, message: result.message };
  const { png, raw2, raw4 } = result.bitmaps;
  const reply: WorkerReply = { ok: true, png, raw2, raw4 };
  return withTransfer(reply, [png.buffer, raw2.buffer, raw4.buffer]);
}
