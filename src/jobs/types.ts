/** Background jobs as the domains see them; pg-boss on the same PostgreSQL behind it. */
import type { Trx } from "../schema.ts";

/** Render one push: its source and target keys are on the push row. */
export interface RenderJob {
  pushId: string;
}

/** Which try of a job this is; on the `final` one a throw fails the job for good. */
export interface RenderAttempt {
  /** 1 for the first run, 2 for the first retry, ... */
  number: number;
  /** No retry follows if this attempt throws: record the failure now. */
  final: boolean;
}

export interface Jobs {
  /**
   * Enqueues a render. Given a transaction, the job is enqueued inside it and vanishes if the
   * transaction rolls back.
   */
  enqueueRender(job: RenderJob, trx?: Trx): Promise<void>;
  /**
   * Registers the function that performs render jobs; a throw means retry with backoff, until
   * the attempt marked `final`. Register once, at start-up.
   */
  onRender(handler: (job: RenderJob, attempt: RenderAttempt) => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}
