/**
 * The summary stage (SPEC 4.6 stage 1), the handler of `summarizeQueue`: the item's pictures
 * are measured and downsized in the render pool, the note and pictures go to the model (Claude's
 * text and vision, or the offline model), and `summary_content` is written onto the item, which
 * becomes `summarized`. A failure is recorded on the item: while retries remain it stays
 * `processing` with the error; on the final attempt (or a failure no retry can fix) it becomes
 * `failed`. Nothing here throws past the queue's retry.
 */
import { type Log, silentLog } from "../../infra/lib/log.ts";
import type { Attempt } from "../../infra/jobs/types.ts";
import { type Model, ModelError } from "../../infra/ai/model.ts";
import type { Renderer } from "../../infra/render/types.ts";
import { RenderRejected } from "../../infra/render/errors.ts";
import { templateRegistry } from "../../infra/render/templates/registry.ts";
import type { ContentService } from "./service.ts";
import * as repo from "./repository.ts";
import { parseSummary, type SummaryPicture, summaryRequest } from "./summary_prompt.ts";

/** A model answer without a usable summary: another try may do better. */
class NoSummary extends Error {}

/** What `SummarizeJob` is built from (one object, like every domain's service). */
export interface SummarizeJobDeps {
  content: ContentService;
  renderer: Renderer;
  model: Model;
  log?: Log;
}

export class SummarizeJob {
  private readonly content: ContentService;
  private readonly renderer: Renderer;
  private readonly model: Model;
  private readonly log: Log;

  constructor(deps: SummarizeJobDeps) {
    this.content = deps.content;
    this.renderer = deps.renderer;
    this.model = deps.model;
    this.log = deps.log ?? silentLog;
  }

  /** The handler of `summarizeQueue`; a throw tells the queue to retry with backoff. */
  async handle(job: { rawItemId: string }, attempt: Attempt): Promise<void> {
    const { db } = this.content;
    const item = await repo.findRawItem(db, job.rawItemId);
    // Gone (account deleted) or already done (a retried job): nothing to do.
    if (!item || item.status !== "processing") return;
    await repo.updateRawItem(db, item.id, { summary_attempts: item.summary_attempts + 1 });
    try {
      const attachments = await repo.attachmentsOf(db, [item.id]);
      const pictures: SummaryPicture[] = [];
      for (const attachment of attachments) {
        pictures.push(await this.picture(attachment.object_key, attachment.filename));
      }
      const templates = templateRegistry().list().map(({ name, title, description }) => ({
        name,
        title,
        description,
      }));
      const response = await this.model.complete(summaryRequest({
        title: item.title,
        text: item.text,
        pictures,
        templates,
      }));
      const result = parseSummary(response, templates.map((t) => t.name), pictures.length);
      if (!result) throw new NoSummary("The model returned no usable summary");
      await db.transaction().execute(async (trx) => {
        for (const [i, attachment] of attachments.entries()) {
          const description = result.descriptions[i];
          if (description) await repo.describeAttachment(trx, attachment.file_id, description);
        }
        await repo.transitionRawItem(trx, item.id, "processing", {
          status: "summarized",
          summary_content: result.summary,
          summarized_at: new Date(),
          error: null,
        });
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const permanent = error instanceof ModelError && !error.retryable;
      this.log.info("summary failed", { rawItemId: item.id, error: message, final: attempt.final });
      if (attempt.final || permanent) {
        await repo.transitionRawItem(db, item.id, "processing", {
          status: "failed",
          error: message.slice(0, 1000),
          failed_at: new Date(),
        });
        return;
      }
      await repo.updateRawItem(db, item.id, { error: `${message.slice(0, 900)} (retrying)` });
      throw error;
    }
  }

  /** A picture measured and downsized; one that cannot be decoded is described as such. */
  private async picture(key: string, filename: string | null): Promise<SummaryPicture> {
    const bytes = await this.content.store.get(key);
    if (!bytes) return { filename, facts: null, problem: "the file is missing" };
    try {
      const { facts, preview } = await this.renderer.inspectImage(bytes);
      return { filename, facts, preview };
    } catch (error) {
      // A picture no retry can decode does not stop the note's summary.
      if (error instanceof RenderRejected) return { filename, facts: null, problem: error.message };
      throw error;
    }
  }
}
