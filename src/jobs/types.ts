/** Background jobs as the domains see them; pg-boss on the same PostgreSQL behind it. */
import type { Trx } from "../schema.ts";

/** Render one push: its source and target keys are on the push row. */
export interface RenderJob {
  pushId: string;
}

export interface Jobs {
  /**
   * Enqueues a render. Given a transaction, the job is enqueued inside it and vanishes if the
   * transaction rolls back.
   */
  enqueueRender(job: RenderJob, trx?: Trx): Promise<void>;
  /** Registers the function that performs render jobs; a throw means retry with backoff. */
  onRender(handler: (job: RenderJob) => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}
