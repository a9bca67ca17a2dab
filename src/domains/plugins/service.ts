/**
 * Plugins (issue 36, CONTRACT.md "Screens that keep themselves current"): a user's screens drawn
 * from Liquid markup and data. The data is the plugin's static data, what its webhook inbox last
 * stored (TRMNL's path and body, no token: the uuid is the credential), or what its polling URLs
 * last answered well. A plugin is seen as a preview PNG at any panel size and grey depth, or as a
 * push of one of the user's devices (template `plugin`, drawn by the push render job for the
 * device's panel through the `pushDrawing` hook), so delivery, history and webhooks work for it as
 * for any push.
 */
import type { Db } from "../../schema.ts";
import { AppError, badRequest } from "../../errors.ts";
import * as access from "../../infra/access/mod.ts";
import { isUuid, uuidv7 } from "../../infra/lib/ids.ts";
import { type Log, silentLog } from "../../infra/lib/log.ts";
import type { PanelSpec, PushBitmaps } from "../../infra/render/types.ts";
import { RenderRejected } from "../../infra/render/errors.ts";
import type { DevicesService } from "../devices/service.ts";
import type { PushesService } from "../pushes/service.ts";
import { type EventSink, NO_EVENTS } from "../webhooks/events.ts";
import type { PluginDrawing, PluginPage } from "./drawing.ts";
import {
  MASHUP_LAYOUTS,
  MASHUP_VIEWS,
  type MashupLayout,
  type ScreenContent,
} from "../../infra/html/shell.ts";
import { invalid } from "../../infra/http/raw.ts";
import { type CustomFieldDefinition, exportRecipe, parseRecipe, RecipeError } from "./recipe.ts";
import {
  type CreatePluginInput,
  createPluginSchema,
  MAX_DATA_BYTES,
  MAX_PLUGINS,
  PLUGIN_VIEWS,
  type PluginView,
  type UpdatePluginInput,
} from "./inputs.ts";
import { type MergeStrategy, mergeVariables } from "./merge.ts";
import { poll, type PollFetcher } from "./polling.ts";
import * as repo from "./repository.ts";
import { jsonb } from "./repository.ts";
import type { PluginRow } from "./tables.ts";
import { type Plugin, toPlugin } from "./views.ts";

/** What an owner check of this kind answers (src/infra/access/mod.ts). */
export const PLUGIN = access.hidden("plugin", "Plugin not found");

/** The push template of a plugin's render: its params are `{pluginId, view}`. */
export const PLUGIN_PUSH_TEMPLATE = "plugin";

/** CONTRACT.md: a webhook post is at most 64 KiB; what the merges store is held to the same. */
export const INBOX_MAX_BYTES = 64 * 1024;

const HOUR_MS = 60 * 60 * 1000;

/** Plugin previews one user may have drawing at once in a process. */
export const PREVIEWS_PER_USER = 2;

export type { PluginRow };

/** What a webhook inbox post carries (TRMNL's body). */
export interface InboxPost {
  merge_variables: Record<string, unknown>;
  merge_strategy?: MergeStrategy;
  stream_limit?: number;
}

export interface PluginsDeps {
  db: Db;
  /** The service's public address, for webhook URLs (known once listening). */
  baseUrl: () => string;
  /** Posts one inbox takes an hour (PLUGIN_WEBHOOKS_PER_HOUR). */
  webhooksPerHour: number;
  /** The polling URLs' fetcher (the outbound guard). */
  fetcher: PollFetcher;
  drawing: PluginDrawing;
  devices: DevicesService;
  pushes: PushesService;
  events?: EventSink;
  log?: Log;
  now?: () => Date;
}

/** How a plugin is seen: which view, at what panel. */
export interface PluginShot {
  view: PluginView;
  panel: PanelSpec;
  signal?: AbortSignal;
}

function utf8Length(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

/** The wire shape of a plugin's markup, as stored (absent views are not stored). */
function markupRow(markup: CreatePluginInput["markup"]) {
  return jsonb(Object.fromEntries(Object.entries(markup).filter(([, v]) => v !== undefined)));
}

export class PluginsService {
  private readonly db: Db;
  private readonly events: EventSink;
  private readonly log: Log;
  private readonly now: () => Date;

  constructor(private readonly deps: PluginsDeps) {
    this.db = deps.db;
    this.events = deps.events ?? NO_EVENTS;
    this.log = deps.log ?? silentLog;
    this.now = deps.now ?? (() => new Date());
  }

  private view(row: PluginRow): Plugin {
    return toPlugin(row, this.deps.baseUrl());
  }

  /** The user's plugin, or 404 (unknown, or another user's). */
  async row(userId: string, id: string): Promise<PluginRow> {
    return access.found(PLUGIN, isUuid(id) ? await repo.findPlugin(this.db, userId, id) : null);
  }

  /** `POST /api/plugins`: 201; a polling plugin needs its URLs; at most MAX_PLUGINS a user. */
  async create(
    userId: string,
    input: CreatePluginInput,
    definitions: CustomFieldDefinition[] = [],
  ): Promise<Plugin> {
    if (input.strategy === "polling" && !input.polling) {
      throw badRequest("polling: a polling plugin needs its urls");
    }
    const row = await this.db.transaction().execute(async (trx) => {
      // Counted under the user's rows' lock order: two concurrent creates cannot both pass.
      await trx.selectFrom("plugins").select("id").where("user_id", "=", userId).forUpdate()
        .execute();
      if (await repo.countPlugins(trx, userId) >= MAX_PLUGINS) {
        throw badRequest(`At most ${MAX_PLUGINS} plugins per user`);
      }
      return await repo.insertPlugin(trx, {
        id: uuidv7(),
        user_id: userId,
        name: input.name,
        strategy: input.strategy,
        markup: markupRow(input.markup),
        static_data: jsonb(input.staticData ?? {}),
        polling: input.polling ? jsonb(input.polling) : null,
        refresh_minutes: input.refreshMinutes ?? 15,
        custom_fields: jsonb(input.customFields ?? {}),
        custom_field_definitions: jsonb(definitions),
        // Every plugin gets its inbox credential: it becomes usable when the strategy is webhook.
        webhook_uuid: crypto.randomUUID(),
      });
    });
    return this.view(row);
  }

  async list(userId: string): Promise<Plugin[]> {
    return (await repo.listPlugins(this.db, userId)).map((row) => this.view(row));
  }

  async get(userId: string, id: string): Promise<Plugin> {
    return this.view(await this.row(userId, id));
  }

  /** `PUT /api/plugins/{id}`: any fields; the result must still be a whole plugin. */
  async update(userId: string, id: string, input: UpdatePluginInput): Promise<Plugin> {
    if (!isUuid(id)) throw access.missing(PLUGIN);
    const row = await this.db.transaction().execute(async (trx) => {
      const current = access.found(PLUGIN, await repo.lockPlugin(trx, userId, id));
      const strategy = input.strategy ?? current.strategy;
      const polling = input.polling === undefined ? current.polling : input.polling;
      if (strategy === "polling" && !polling) {
        throw badRequest("polling: a polling plugin needs its urls");
      }
      const changesData = input.polling !== undefined || input.strategy !== undefined ||
        input.customFields !== undefined || input.refreshMinutes !== undefined;
      return await repo.updatePlugin(trx, id, {
        ...(input.name !== undefined ? { name: input.name } : {}),
        strategy,
        ...(input.markup ? { markup: markupRow(input.markup) } : {}),
        ...(input.staticData ? { static_data: jsonb(input.staticData) } : {}),
        ...(input.polling !== undefined ? { polling: polling ? jsonb(polling) : null } : {}),
        ...(input.refreshMinutes !== undefined ? { refresh_minutes: input.refreshMinutes } : {}),
        ...(input.customFields ? { custom_fields: jsonb(input.customFields) } : {}),
        // New polling settings are fetched at the next render, not after the old interval.
        ...(changesData ? { data_polled_at: null } : {}),
        updated_at: this.now(),
      });
    });
    return this.view(row);
  }

  /** `DELETE /api/plugins/{id}`: 204; another user's 404. */
  async delete(userId: string, id: string): Promise<void> {
    if (!isUuid(id) || !await repo.deletePlugin(this.db, userId, id)) {
      throw access.missing(PLUGIN);
    }
  }

  /**
   * `POST /api/plugins/import`: a recipe zip made a plugin, checked like a JSON body (400 naming
   * the field), with what will not work as on TRMNL.
   */
  async importRecipe(userId: string, bytes: Uint8Array) {
    let parsed;
    try {
      parsed = parseRecipe(bytes);
    } catch (error) {
      if (error instanceof RecipeError) throw badRequest(error.message);
      throw error;
    }
    const checked = createPluginSchema.safeParse(parsed.input);
    if (!checked.success) throw invalid(checked.error);
    const plugin = await this.create(userId, checked.data, parsed.customFieldDefinitions);
    return { plugin, compatibility: { warnings: parsed.warnings } };
  }

  /** `GET /api/plugins/{id}/export`: the plugin as a trmnlp project zip. */
  async exportRecipe(userId: string, id: string): Promise<{ name: string; zip: Uint8Array }> {
    const row = await this.row(userId, id);
    const zip = exportRecipe({
      name: row.name,
      strategy: row.strategy,
      markup: row.markup,
      staticData: row.static_data,
      ...(row.polling ? { polling: row.polling } : {}),
      refreshMinutes: row.refresh_minutes,
      customFields: row.custom_fields,
    }, row.custom_field_definitions);
    return { name: row.name, zip };
  }

  /** `GET /api/plugins/{id}/data`: the merge variables the markup sees now. */
  async data(userId: string, id: string) {
    const row = await this.row(userId, id);
    return {
      mergeVariables: row.strategy === "static" ? row.static_data : row.merge_variables,
      updatedAt: row.data_updated_at?.toISOString() ?? null,
      error: row.data_error,
    };
  }

  /** The webhook plugin an inbox uuid names, or 404; a cheap indexed read before any body. */
  async inbox(uuid: string) {
    const found = isUuid(uuid) ? await repo.findInbox(this.db, uuid.toLowerCase()) : undefined;
    if (!found) throw new AppError("not_found", "Plugin not found");
    return found;
  }

  /** 429 with `Retry-After` when the inbox's hour is used up (checked before and in the post). */
  private checkAllowance(row: { inbox_window_start: Date | null; inbox_window_count: number }) {
    const now = this.now().getTime();
    const start = row.inbox_window_start?.getTime();
    if (start === undefined || now - start >= HOUR_MS) return;
    if (row.inbox_window_count < this.deps.webhooksPerHour) return;
    const wait = Math.max(1, Math.ceil((start + HOUR_MS - now) / 1000));
    throw new AppError(
      "rate_limited",
      `At most ${this.deps.webhooksPerHour} posts an hour to this plugin; retry in ${wait} seconds`,
      { "Retry-After": String(wait) },
    );
  }

  /** Before the body is read: unknown uuid 404, a used-up hour 429. */
  async admitPost(uuid: string): Promise<void> {
    this.checkAllowance(await this.inbox(uuid));
  }

  /**
   * `POST /api/custom_plugins/{uuid}`: merges the post into the stored variables under the row's
   * lock (concurrent posts all land, in some order) and counts it against the hour.
   */
  async post(uuid: string, body: InboxPost): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const row = await repo.lockInbox(trx, uuid.toLowerCase());
      if (!row) throw new AppError("not_found", "Plugin not found");
      this.checkAllowance(row);
      const merged = mergeVariables(
        row.merge_variables,
        body.merge_variables,
        body.merge_strategy,
        body.stream_limit,
      );
      if (utf8Length(merged) > INBOX_MAX_BYTES) {
        throw new AppError(
          "payload_too_large",
          `The plugin's merge variables would be over ${INBOX_MAX_BYTES} bytes; ` +
            "send less, or use merge_strategy replace or a smaller stream_limit",
        );
      }
      const now = this.now();
      const fresh = !row.inbox_window_start ||
        now.getTime() - row.inbox_window_start.getTime() >= HOUR_MS;
      await repo.updatePlugin(trx, row.id, {
        merge_variables: jsonb(merged),
        data_updated_at: now,
        inbox_window_start: fresh ? now : row.inbox_window_start,
        inbox_window_count: fresh ? 1 : row.inbox_window_count + 1,
      });
    });
  }

  /**
   * The owner posting to their own webhook plugin (MCP `post_plugin_data`): the inbox's rules,
   * its allowance and size included.
   */
  async postAsOwner(userId: string, id: string, body: InboxPost): Promise<void> {
    const row = await this.row(userId, id);
    if (row.strategy !== "webhook" || !row.webhook_uuid) {
      throw badRequest("Only a webhook plugin takes posted data");
    }
    if (utf8Length(body) > INBOX_MAX_BYTES) {
      throw new AppError("payload_too_large", `The post is over ${INBOX_MAX_BYTES} bytes`);
    }
    await this.post(row.webhook_uuid, body);
  }

  /** `GET /api/custom_plugins/{uuid}`: what the inbox holds. */
  async read(uuid: string): Promise<Record<string, unknown>> {
    return (await this.inbox(uuid)).merge_variables;
  }

  /**
   * The merge variables a render uses. A polling plugin whose data is older than its
   * `refreshMinutes` is fetched first, by the one caller that claims the fetch; a failed fetch
   * keeps the last good data, records why, and tells the owner's webhooks (`plugin.data_failed`).
   */
  async variables(row: PluginRow): Promise<Record<string, unknown>> {
    if (row.strategy === "static") return row.static_data;
    if (row.strategy === "webhook" || !row.polling) return row.merge_variables;
    const now = this.now();
    if (!await repo.claimPoll(this.db, row.id, now)) return row.merge_variables;
    const fill = (text: string) => this.deps.drawing.fill(text, row.custom_fields);
    const result = await poll(this.deps.fetcher, row.polling, fill);
    if (result.ok && utf8Length(result.variables) <= MAX_DATA_BYTES * 4) {
      await this.db.updateTable("plugins").set({
        merge_variables: jsonb(result.variables),
        data_updated_at: now,
        data_error: null,
        data_failed_at: null,
      }).where("id", "=", row.id).execute();
      return result.variables;
    }
    const message = result.ok
      ? `The polling answer is over ${MAX_DATA_BYTES * 4} bytes of JSON`
      : result.message;
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable("plugins").set({ data_error: message, data_failed_at: now })
        .where("id", "=", row.id).execute();
      await this.events.emit(trx, row.user_id, "plugin.data_failed", {
        pluginId: row.id,
        error: message,
      });
    });
    this.log.info("plugin poll failed", { pluginId: row.id, error: message });
    return row.merge_variables;
  }

  /** The page a plugin's view makes with its data, for a panel. */
  private async page(row: PluginRow, view: PluginView, panel: PanelSpec): Promise<PluginPage> {
    return { plugin: row, view, variables: await this.variables(row), panel };
  }

  /**
   * `GET /api/plugins/{id}/preview`: the PNG of exactly that size and grey depth. A user has at
   * most `PREVIEWS_PER_USER` previews drawing at once (429 beyond): one user's editor cannot fill
   * Chromium's queue for everyone else.
   */
  async preview(userId: string, id: string, shot: PluginShot): Promise<Uint8Array> {
    const row = await this.row(userId, id);
    const drawing = this.previewing.get(userId) ?? 0;
    if (drawing >= PREVIEWS_PER_USER) {
      throw new AppError(
        "rate_limited",
        `At most ${PREVIEWS_PER_USER} plugin previews at once; retry when one is done`,
        { "Retry-After": "1" },
      );
    }
    this.previewing.set(userId, drawing + 1);
    try {
      const content = await this.deps.drawing.content([
        await this.page(row, shot.view, shot.panel),
      ]);
      return await this.deps.drawing.preview(userId, content, shot.panel, shot.signal);
    } finally {
      const left = (this.previewing.get(userId) ?? 1) - 1;
      if (left > 0) this.previewing.set(userId, left);
      else this.previewing.delete(userId);
    }
  }

  /** Previews drawing now, by user (this process's). */
  private readonly previewing = new Map<string, number>();

  /**
   * What a screen of the user's plugins shows, for a panel: one plugin's view, or a mashup of
   * several in a layout's slots (each drawn with its view for its slot). A plugin that is not the
   * user's (or was deleted) is refused by `missing`.
   */
  async screen(
    userId: string,
    screen: PluginScreen,
    panel: PanelSpec,
    missing: (id: string) => Error,
  ): Promise<ScreenContent> {
    const ids = "mashup" in screen ? screen.pluginIds : [screen.pluginId];
    const views = "mashup" in screen ? MASHUP_VIEWS[screen.mashup] : [screen.view ?? "full"];
    const pages = await Promise.all(
      ids.slice(0, views.length).map(async (id, i) => {
        const row = isUuid(id) ? await repo.findPlugin(this.db, userId, id) : undefined;
        if (!row) throw missing(id);
        return await this.page(row, views[i] as PluginView, panel);
      }),
    );
    return await this.deps.drawing.content(pages, "mashup" in screen ? screen.mashup : undefined);
  }

  /**
   * `POST /api/plugins/{id}/push`: the plugin drawn once as a push of one of the user's devices
   * (for its panel, by the push render job); 201 `{pushId, deviceId, status}`.
   */
  async push(userId: string, id: string, input: { deviceId: string; view?: PluginView }) {
    const row = await this.row(userId, id);
    await this.deps.devices.owned(userId, input.deviceId);
    const push = await this.deps.pushes.create({
      userId,
      deviceId: input.deviceId,
      title: row.name,
      template: PLUGIN_PUSH_TEMPLATE,
      params: { pluginId: row.id, view: input.view ?? "full" },
    });
    return { pushId: push.id, deviceId: input.deviceId, status: push.status };
  }

  /**
   * The push render job's drawing of a `plugin` push (the `pushDrawing` hook): its screen (one
   * plugin's view, or a mashup) of the push owner's plugins, drawn for the device's panel (800x480
   * 1-bit for a device without one). A plugin deleted meanwhile, or markup that does not render,
   * fails the push for good.
   */
  async drawPush(
    push: { user_id: string; params: unknown },
    panel: PanelSpec | null,
  ): Promise<PushBitmaps> {
    const screen = screenOf(push.params);
    const target = panel ?? { width: 800, height: 480, bitDepth: 1 as const };
    try {
      const content = await this.screen(
        push.user_id,
        screen,
        target,
        () => new RenderRejected("not_found", "A plugin of this push was deleted"),
      );
      return await this.deps.drawing.bitmaps(content, target);
    } catch (error) {
      // Markup that does not render will not on a retry: the push fails for good with why.
      if (error instanceof AppError && error.status === 400) {
        throw new RenderRejected("invalid_request", error.message);
      }
      throw error;
    }
  }
}

/** One plugin's view, or a mashup of plugins in a layout's slots (reading order). */
export type PluginScreen =
  | { pluginId: string; view?: PluginView }
  | { mashup: MashupLayout; pluginIds: string[] };

/** The screen a `plugin` push's params name (its own fields; unknown ones are ignored). */
export function screenOf(params: unknown): PluginScreen {
  const p = (params ?? {}) as Record<string, unknown>;
  if (typeof p.mashup === "string" && (MASHUP_LAYOUTS as readonly string[]).includes(p.mashup)) {
    const ids = Array.isArray(p.pluginIds)
      ? p.pluginIds.filter((id) => typeof id === "string")
      : [];
    return { mashup: p.mashup as MashupLayout, pluginIds: ids as string[] };
  }
  const view = PLUGIN_VIEWS.find((v) => v === p.view) ?? "full";
  return { pluginId: typeof p.pluginId === "string" ? p.pluginId : "", view };
}
