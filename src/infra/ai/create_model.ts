/**
 * The one place a `Model` is chosen (CONTRACT.md): Claude when `ANTHROPIC_API_KEY` is set, else
 * the offline model, deterministic and without network, answering each task with the behaviour
 * its domain passes here.
 */
import type { Config } from "../../config.ts";
import { AnthropicModel } from "./anthropic.ts";
import type { Model, OfflineTask } from "./model.ts";
import { OfflineModel } from "./offline.ts";

export interface ModelChoice {
  /** The offline behaviour of each task, by task name. */
  offlineTasks: Readonly<Record<string, OfflineTask>>;
  /** Claude model names for tasks that do not use the default model. */
  taskModels?: Readonly<Record<string, string>>;
}

/** The service's model: Claude when a key is configured, else the offline model. */
export function createModel(config: Pick<Config, "anthropic">, choice: ModelChoice): Model {
  const { anthropic } = config;
  if (anthropic.apiKey) {
    return new AnthropicModel({
      apiKey: anthropic.apiKey,
      baseUrl: anthropic.baseUrl,
      model: anthropic.model,
      taskModels: { ...choice.taskModels },
    });
  }
  return new OfflineModel(choice.offlineTasks);
}
