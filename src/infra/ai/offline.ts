/**
 * The offline model (CONTRACT.md: no `ANTHROPIC_API_KEY`): deterministic and without network.
 * It answers each task with the behaviour the owning domain registered for it, so the same
 * calling code (the agent loop, the summary stage, Scene generation) runs with or without Claude.
 */
import { type Model, ModelError, type ModelRequest, type OfflineTask } from "./model.ts";

export const OFFLINE_MODEL_NAME = "offline";

export class OfflineModel implements Model {
  readonly name = OFFLINE_MODEL_NAME;

  constructor(private readonly tasks: Readonly<Record<string, OfflineTask>>) {}

  async complete(request: ModelRequest) {
    const task = Object.hasOwn(this.tasks, request.task) ? this.tasks[request.task] : undefined;
    if (!task) {
      throw new ModelError(`The offline model has no behaviour for ${request.task}`, false);
    }
    return { ...(await task(request)), model: OFFLINE_MODEL_NAME };
  }
}
