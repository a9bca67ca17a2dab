/**
 * The agent's `create_push` (SPEC 4.6 stage 2, issue 10): the variables are checked against the
 * template's schema, the device must be the user's, the items the user's summarised ones, every
 * picture variable one of the user's files, and no item may reach the same device twice. The
 * push is created in PREPARE with a title and summary, its render job enqueued and its items
 * recorded, in one transaction; the unique (item, device) key settles a race.
 */
import { ToolError } from "../../infra/ai/agent.ts";
import { AppError } from "../../errors.ts";
import type { Db } from "../../schema.ts";
import type { DevicesService } from "../devices/service.ts";
import type { PushesService } from "../pushes/service.ts";
import * as files from "../files/repository.ts";
import { templateRegistry } from "../../infra/render/templates/registry.ts";
import { clip } from "./heuristics.ts";
import * as repo from "./repository.ts";
import type { SummaryContent } from "./views.ts";

export interface AgentPushInput {
  deviceId: string;
  template: string;
  variables: Record<string, unknown>;
  rawItemIds: string[];
  title?: string;
  summary?: string;
  priority?: number;
}

export interface AgentPushDeps {
  db: Db;
  devices: DevicesService;
  pushes: PushesService;
}

/**
 * The agent's view of a device: the user's own, or not found. Another user's device is "not
 * found" like an unknown one (SPEC 5.8); SPEC 4.5's 403 belongs to the device endpoints.
 */
export async function ownDevice(devices: DevicesService, userId: string, deviceId: string) {
  try {
    return await devices.owned(userId, deviceId);
  } catch (error) {
    if (error instanceof AppError && error.status === 403) {
      throw new ToolError(`Device ${deviceId} not found`);
    }
    throw error;
  }
}

/** PostgreSQL's unique_violation: a concurrent run pushed the same item to the device first. */
function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null &&
    String((error as { code?: unknown }).code) === "23505";
}

/** Creates the push; a refusal is a `ToolError` (or an `AppError`) the model reads and fixes. */
export async function createAgentPush(
  deps: AgentPushDeps,
  context: { userId: string; runId: string | null },
  input: AgentPushInput,
) {
  const { userId } = context;
  const registry = templateRegistry();
  // 404 unknown template, 400 naming the variable (the same check as the preview).
  const variables = await registry.validate(input.template, input.variables);
  await ownDevice(deps.devices, userId, input.deviceId);
  const itemIds = [...new Set(input.rawItemIds)];
  const items = [];
  for (const id of itemIds) {
    const item = await repo.findOwnedRawItem(deps.db, userId, id);
    if (!item) throw new ToolError(`Note ${id} not found`);
    if (item.status !== "summarized") throw new ToolError(`Note ${id} is not summarised yet`);
    items.push(item);
  }
  const template = registry.get(input.template)!;
  const pictureIds = template.imageVariables
    .map((name) => [name, variables[name]] as const)
    .filter((entry): entry is readonly [string, string] => typeof entry[1] === "string");
  const owned = new Set(
    (await files.confirmedUserFiles(deps.db, userId, pictureIds.map(([, id]) => id)))
      .filter((f) => f.purpose !== "push_render").map((f) => f.id),
  );
  for (const [name, fileId] of pictureIds) {
    if (!owned.has(fileId)) {
      throw new ToolError(`Variable ${name}: ${fileId} is not the file id of one of the pictures`);
    }
  }
  const done = await repo.alreadyPushed(deps.db, itemIds, input.deviceId);
  if (done.length) {
    throw new ToolError(
      `Note ${done[0].raw_item_id} was already pushed to device ${input.deviceId} (push ${
        done[0].push_id
      }); each note goes to a device once`,
    );
  }
  const summary = items[0].summary_content as SummaryContent | null;
  try {
    const push = await deps.db.transaction().execute(async (trx) => {
      const push = await deps.pushes.create({
        userId,
        deviceId: input.deviceId,
        title: clip(input.title?.trim() || summary?.title || "", 200),
        summary: clip(input.summary?.trim() || summary?.summary || "", 500),
        priority: input.priority ?? 0,
        template: input.template,
        params: variables,
      }, trx);
      await repo.insertContentPushes(
        trx,
        itemIds.map((rawItemId) => ({
          push_id: push.id,
          raw_item_id: rawItemId,
          device_id: input.deviceId,
          user_id: userId,
          run_id: context.runId,
        })),
      );
      return push;
    });
    return {
      pushId: push.id,
      status: push.status,
      deviceId: input.deviceId,
      template: push.template,
    };
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new ToolError(`One of the notes was already pushed to device ${input.deviceId}`);
    }
    throw error;
  }
}
