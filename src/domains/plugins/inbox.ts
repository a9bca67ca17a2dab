/**
 * The webhook inbox (CONTRACT.md, TRMNL's path and body): `POST /api/custom_plugins/{uuid}` with
 * `{"merge_variables": {…}}` stores a webhook plugin's data, `GET` answers it. No token: the uuid
 * (random, 122 bits) is the credential, looked up (404) and its hourly allowance checked (429)
 * before a byte of the body is read; the body is at most 64 KiB (413).
 */
import { z } from "zod";
import { defineRawRoute, json, type RawAuth, type RawRoute } from "../../infra/http/raw.ts";
import { MERGE_STRATEGIES } from "./merge.ts";
import { INBOX_MAX_BYTES } from "./service.ts";

const params = z.object({
  uuid: z.string().meta({ description: "The plugin's inbox id, from its `webhookUrl`" }),
});

const mergeVariables = z.record(z.string(), z.unknown()).meta({
  description: "What the markup sees at the top level",
});

/** The uuid in the path is the credential: an unknown one is 404, a used-up hour 429. */
function inboxAuth(admitPosts: boolean): RawAuth<string> {
  return {
    access: {
      credentials: [],
      errors: admitPosts
        ? {
          404: "Unknown uuid, or the plugin is not a webhook plugin",
          429: "Over PLUGIN_WEBHOOKS_PER_HOUR posts this hour (Retry-After)",
        }
        : { 404: "Unknown uuid, or the plugin is not a webhook plugin" },
    },
    async check(ctx) {
      const uuid = ctx.params.uuid ?? "";
      if (admitPosts) await ctx.services.plugins.admitPost(uuid);
      else await ctx.services.plugins.inbox(uuid);
      return uuid;
    },
  };
}

export const postInbox: RawRoute = defineRawRoute({
  method: "POST",
  path: "/api/custom_plugins/{uuid}",
  operationId: "plugins-postWebhook",
  summary: "Send a webhook plugin its data (TRMNL's webhook)",
  description: "TRMNL's private plugin webhook, on this host: scripts and Home Assistant " +
    "automations written for TRMNL work by changing the host. `merge_strategy`: `replace` " +
    "(default) stores the post; `deep_merge` merges nested objects; `stream` appends to " +
    "top-level arrays, keeping the newest `stream_limit` items. No token: the uuid is the " +
    "credential.",
  tags: ["plugins"],
  auth: inboxAuth(true),
  params,
  body: {
    kind: "json",
    limit: INBOX_MAX_BYTES,
    schema: z.object({
      merge_variables: mergeVariables,
      merge_strategy: z.enum(MERGE_STRATEGIES).optional(),
      stream_limit: z.number().int().min(1, "must be at least 1").max(
        10_000,
        "must be at most 10000",
      ).optional(),
    }),
    example: { merge_variables: { temperature: 21.5, room: "Living room" } },
  },
  responses: {
    200: {
      description: "Stored",
      content: { "application/json": z.object({ message: z.string() }) },
    },
    413: { description: "payload_too_large: over 64 KiB, or the merged data would be" },
  },
  async handle({ ctx, auth, body }) {
    await ctx.services.plugins.post(auth, body);
    return json({ message: "Merge variables stored" });
  },
});

export const readInbox: RawRoute = defineRawRoute({
  method: "GET",
  path: "/api/custom_plugins/{uuid}",
  operationId: "plugins-readWebhook",
  summary: "What a webhook plugin holds",
  tags: ["plugins"],
  auth: inboxAuth(false),
  params,
  responses: {
    200: {
      description: "The stored merge variables",
      content: { "application/json": z.object({ merge_variables: mergeVariables }) },
    },
  },
  async handle({ ctx, auth }) {
    return json({ merge_variables: await ctx.services.plugins.read(auth) });
  },
});
