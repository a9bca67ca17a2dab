/**
 * The services every procedure and handler reaches through its context, built once from the
 * configuration and the infrastructure. Nothing here names a domain: each face (`mod.ts`) says
 * what its build needs, and the builds run in the order of `src/domains.ts`, a build waiting
 * until the services it needs exist. Then each face's answers to other domains' hooks are made
 * from the finished services and handed to the domains that offered the hooks. The type of the
 * result is `src/services.ts`, which each face extends with its own services.
 */
import type { Config } from "./config.ts";
import type { Db } from "./schema.ts";
import type { Secrets } from "./secrets.ts";
import type { Services } from "./services.ts";
import { ChangeFeed } from "./infra/db/cache/feed.ts";
import { createModel } from "./infra/ai/create_model.ts";
import type { OfflineTask } from "./infra/ai/model.ts";
import type { Context, DomainDefinition, Hooks, Infrastructure } from "./face.ts";
import { DOMAINS } from "./domains.ts";

/** Builds every domain's services over the infrastructure, each after the ones it needs. */
export function createServices(
  config: Config,
  db: Db,
  secrets: Secrets,
  infra: Infrastructure,
  domains: readonly DomainDefinition[] = DOMAINS,
): Services {
  const changes = infra.changes ?? ChangeFeed.disabled();
  const context: Context = {
    ...infra,
    changes,
    config,
    db,
    secrets,
    model: modelOf(config, infra, domains),
  };
  const services = {
    config,
    db,
    changes,
    jobs: infra.jobs,
    renderer: infra.renderer,
    storage: infra.storage,
    model: context.model,
  } as Services;
  const hooks = new Map<keyof Hooks, unknown[]>();
  const hookList = <H extends keyof Hooks>(hook: H) =>
    (hooks.get(hook) ?? hooks.set(hook, []).get(hook)!) as Hooks[H][];
  const objectKeys = domains.flatMap((domain) => domain.objectKeys ? [domain.objectKeys] : []);
  // In list order, a build waiting until what it needs is built.
  let waiting = domains.filter((domain) => domain.build);
  while (waiting.length) {
    const ready = waiting.find((domain) => domain.build!.needs.every((need) => need in services));
    if (!ready) {
      const names = waiting.map((domain) => `${domain.name} (${domain.build!.needs.join(", ")})`);
      throw new Error(`No domain builds what these need: ${names.join("; ")}`);
    }
    Object.assign(
      services,
      ready.build!.make({ ...context, services, hooks: hookList, objectKeys }),
    );
    waiting = waiting.filter((domain) => domain !== ready);
  }
  // Every service exists: the answers to the hooks are made, in list order.
  for (const domain of domains) {
    for (const [hook, answer] of Object.entries(domain.hooks ?? {})) {
      hookList(hook as keyof Hooks).push(answer({ ...context, services }));
    }
  }
  for (const list of hooks.values()) Object.freeze(list);
  return services;
}

/** The model, with the faces' tasks: their offline behaviour and their Claude models. */
function modelOf(config: Config, infra: Infrastructure, domains: readonly DomainDefinition[]) {
  const offlineTasks: Record<string, OfflineTask> = {};
  const taskModels: Record<string, string> = {};
  for (const domain of domains) {
    const tasks = domain.modelTasks?.({ config, renderer: infra.renderer }) ?? {};
    for (const [name, task] of Object.entries(tasks)) {
      offlineTasks[name] = task.offline;
      if (task.model) taskModels[name] = task.model;
    }
  }
  return createModel(config, { offlineTasks, taskModels });
}
