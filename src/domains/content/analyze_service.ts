/**
 * The analyze stage (SPEC 4.6 stage 2): runs are triggered (MANUAL) or scheduled (SCHEDULED),
 * at most one queued or running per user (the `exclusive` queue keyed by user id decides, also
 * across processes); a run is the agent loop over the eight tools, every tool call recorded on the
 * run as it happens. A model failure is recorded on the run: `queued` with the error while a
 * retry follows, `failed` with the reason once none does.
 */
import type { Selectable } from "kysely";
import { type Log, silentLog } from "../../infra/lib/log.ts";
import type { Db } from "../../schema.ts";
import { AppError } from "../../errors.ts";
import * as access from "../../infra/access/mod.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import type { Attempt, Jobs } from "../../infra/jobs/types.ts";
import { type Model, ModelError } from "../../infra/ai/model.ts";
import { type AgentResult, runAgent } from "../../infra/ai/agent.ts";
import type { DevicesService } from "../devices/service.ts";
import type { PushesService } from "../pushes/service.ts";
import { anchorOf, keysetPage } from "../../infra/lib/cursor.ts";
import { analyzeQueue } from "./queues.ts";
import * as repo from "./repository.ts";
import type { AnalyzeReason, AnalyzeRunsTable } from "./tables.ts";
import { contentTools } from "./tools.ts";
import { withoutNul } from "./heuristics.ts";
import { toAnalyzeRun } from "./views.ts";

/** What an owner check of this kind answers (src/infra/access/mod.ts). */
export const ANALYZE_RUN = access.hidden("analyzeRun", "Analyze run not found");

export const AGENT_TASK = "content.agent";

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 50;

/** The run already has a job queued or running: nothing is added (rolls the new run back). */
class AlreadyQueued extends Error {}

export interface AnalyzeOptions {
  maxSteps: number;
  tokenBudget: number;
  log?: Log;
  /** The clock the agent is told (tests pin it). */
  now?: () => Date;
}

function systemPrompt(now: Date): string {
  return [
    "You decide what a user's e-ink displays show. Each display is 800x480 pixels, black and",
    "white. The user drops notes and pictures; each has been summarised. Look at the new notes",
    "(list_notes, read_note_content), the templates (list_templates, get_template_detail,",
    "get_template_schema), the devices (list_devices) and what they showed recently",
    "(get_push_history). Then call create_push for what is worth showing: pick the template",
    "that fits the note, fill its variables exactly as its schema says (pictures by the",
    "fileId read_note_content gives), name the notes it shows in rawItemIds, and give a short",
    "title and a one- or two-sentence summary. A note goes to a device at most once. If a tool",
    "answers with an error, read it and fix your input. When you are done, answer with one",
    `short sentence saying what you pushed. Now: ${now.toISOString()}.`,
  ].join(" ");
}

/** What `AnalyzeService` is built from (one object, like every domain's service). */
export interface AnalyzeDeps extends AnalyzeOptions {
  db: Db;
  jobs: Jobs;
  model: Model;
  devices: DevicesService;
  pushes: PushesService;
}

export class AnalyzeService {
  private readonly log: Log;
  private readonly now: () => Date;

  private readonly db: Db;
  private readonly jobs: Jobs;
  private readonly model: Model;
  private readonly deps: { devices: DevicesService; pushes: PushesService };
  private readonly options: AnalyzeOptions;

  constructor({ db, jobs, model, devices, pushes, ...options }: AnalyzeDeps) {
    this.db = db;
    this.jobs = jobs;
    this.model = model;
    this.deps = { devices, pushes };
    this.options = options;
    this.log = options.log ?? silentLog;
    this.now = options.now ?? (() => new Date());
  }

  /**
   * `POST /api/analyze/trigger` and the schedule: a run in `queued` and its job, in one
   * transaction; when the user already has a run queued or running the new one is rolled back
   * and nothing stacks. Returns whether a run was added.
   */
  async trigger(userId: string, reason: AnalyzeReason): Promise<boolean> {
    try {
      await this.db.transaction().execute(async (trx) => {
        const run = await repo.insertRun(trx, {
          id: uuidv7(),
          user_id: userId,
          reason,
          status: "queued",
          model: this.model.name,
        });
        const jobId = await this.jobs.send(
          analyzeQueue,
          { runId: run.id, userId },
          { trx, singletonKey: userId },
        );
        if (!jobId) throw new AlreadyQueued();
      });
      return true;
    } catch (error) {
      if (error instanceof AlreadyQueued) return false;
      throw error;
    }
  }

  /** The schedule's tick: a SCHEDULED run for each user with newly summarised material. */
  async scheduled(): Promise<number> {
    let started = 0;
    for (const userId of await repo.usersWithNewMaterial(this.db)) {
      if (await this.trigger(userId, "SCHEDULED")) started++;
    }
    if (started) this.log.info("scheduled analyze runs", { started });
    return started;
  }

  private async views(rows: Selectable<AnalyzeRunsTable>[]) {
    const pushes = await repo.pushesOfRuns(this.db, rows.map((r) => r.id));
    return rows.map((row) =>
      toAnalyzeRun(row, pushes.filter((p) => p.run_id === row.id).map((p) => p.push_id))
    );
  }

  /** `GET /api/analyze/runs`: newest first, paged like pushes. */
  async listRuns(userId: string, input: { cursor?: string; limit?: number }) {
    const after = anchorOf(input.cursor);
    const limit = Math.min(input.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
    const rows = await repo.listRuns(this.db, userId, { after, limit });
    return await keysetPage(rows, limit, (page) => this.views(page));
  }

  /** `GET /api/analyze/runs/{id}`: 404 unless it is the caller's. */
  async getRun(userId: string, id: string) {
    const row = access.found(ANALYZE_RUN, await repo.findOwnedRun(this.db, userId, id));
    return (await this.views([row]))[0];
  }

  /** The handler of `analyzeQueue`; a throw tells the queue to retry with backoff. */
  async handle(job: { runId: string; userId: string }, attempt: Attempt): Promise<void> {
    const run = await repo.findRun(this.db, job.runId);
    // Gone (account deleted) or finished (a retried job): nothing to do.
    if (!run || run.status === "succeeded" || run.status === "failed") return;
    await repo.updateRun(this.db, run.id, {
      status: "running",
      started_at: run.started_at ?? new Date(),
      model: this.model.name,
      attempts: run.attempts + 1,
      error: null,
    });
    let result: AgentResult;
    try {
      result = await runAgent({
        model: this.model,
        task: AGENT_TASK,
        system: systemPrompt(this.now()),
        messages: [{
          role: "user",
          content: [{
            type: "text",
            text: `Analyze run (${run.reason}). Review the new notes and push what is worth ` +
              "showing on the devices.",
          }],
        }],
        tools: contentTools({ db: this.db, ...this.deps }, { userId: run.user_id, runId: run.id }),
        maxSteps: this.options.maxSteps,
        tokenBudget: this.options.tokenBudget,
        maxTokensPerCall: 4096,
        // A NUL the model sent cannot be stored (jsonb): the record leaves it out.
        onStep: (step) => repo.appendStep(this.db, run.id, withoutNul(step)).then(() => {}),
        // A refusal the model can act on (bad variables, not its device) is shown to it.
        isExpected: (error) => error instanceof AppError && error.status < 500,
        onUnexpected: (tool, error) =>
          this.log.error("analyze tool failed", { runId: run.id, tool, error: String(error) }),
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const retry = !attempt.final && (!(error instanceof ModelError) || error.retryable);
      this.log.info("analyze run failed", { runId: run.id, error: message, retry });
      await repo.updateRun(this.db, run.id, {
        status: retry ? "queued" : "failed",
        error: retry ? `${message.slice(0, 900)} (retrying)` : message.slice(0, 1000),
        ...(retry ? {} : { finished_at: new Date() }),
      });
      if (retry) throw error;
      return;
    }
    const stopped = result.outcome === "step_limit"
      ? `Stopped at the step limit (${this.options.maxSteps} model calls) before the agent finished`
      : result.outcome === "token_budget"
      ? `Stopped when the token budget (${this.options.tokenBudget}) was spent`
      : null;
    await repo.updateRun(this.db, run.id, {
      status: stopped ? "failed" : "succeeded",
      error: stopped,
      model: result.model,
      input_tokens: result.usage.inputTokens,
      output_tokens: result.usage.outputTokens,
      finished_at: new Date(),
    });
  }
}
