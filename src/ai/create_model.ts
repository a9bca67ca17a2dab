/**
 * The one place a `Model` is chosen (CONTRACT.md: `ANTHROPIC_API_KEY` unset means the offline
 * model). Each domain passes the offline behaviours of its own tasks.
 */
import type { Config } from "../config.ts";
import type { Model, OfflineTask } from "./model.ts";
import { OfflineModel } from "./offline.ts";

/** The service's model: Claude when a key is configured, else the offline model. */
export function createModel(
  _config: Pick<Config, "anthropic">,
  offlineTasks: Readonly<Record<string, OfflineTask>>,
): Model {
  // MERGE NOTE: with `_config.anthropic.apiKey` set, this returns the Anthropic implementation
  // (src/ai/anthropic.ts, written with the content pipeline); until then, the offline model.
  return new OfflineModel(offlineTasks);
}
