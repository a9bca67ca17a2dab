/**
 * How a render fails, without HTTP in it. `RenderRejected` is the input's fault (a corrupt or
 * oversized image, an unknown template, bad variables, an invalid Scene): no retry can fix it.
 * `RenderUnavailable` is the pool's state (closed, or its queue full): a retry later may work.
 * A job retries on the second and records the first; a request maps either with `toHttpError`.
 */
import { AppError, type ErrorCode } from "../../errors.ts";
import type { WorkerFailureCode } from "./protocol.ts";

/** A render that can never succeed with this input. */
export class RenderRejected extends Error {
  constructor(readonly code: WorkerFailureCode, message: string) {
    super(message);
    this.name = "RenderRejected";
  }
}

/** The pool cannot take the render now; `retryAfterSeconds` when it is only busy. */
export class RenderUnavailable extends Error {
  constructor(message: string, readonly retryAfterSeconds?: number) {
    super(message);
    this.name = "RenderUnavailable";
  }
}

const STATUS_OF: Record<WorkerFailureCode, ErrorCode> = {
  too_large: "payload_too_large",
  not_found: "not_found",
  invalid_request: "invalid_request",
  unsupported_format: "unsupported_media_type",
  undecodable: "unsupported_media_type",
  // A preview past the render deadline (CONTRACT "Render budgets"): 503, a retry may fit.
  timed_out: "unavailable",
};

/** For a request that waits on a render: the HTTP answer of a render failure, else `error`. */
export function toHttpError(error: unknown): unknown {
  if (error instanceof RenderRejected) {
    return new AppError(STATUS_OF[error.code] ?? "unsupported_media_type", error.message);
  }
  if (error instanceof RenderUnavailable) {
    return new AppError(
      "unavailable",
      error.message,
      error.retryAfterSeconds ? { "Retry-After": String(error.retryAfterSeconds) } : {},
    );
  }
  return error;
}
