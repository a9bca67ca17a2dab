/**
 * Targetless contents (SPEC 3.4, 4.7; CONTRACT.md "Targetless contents"): creation with its
 * Idempotency-Key, upload tickets and plan gate; confirm, the one step that starts processing;
 * and the read clients poll. `manual` contents become a push at confirm (`manual.ts`).
 */
import type { Selectable } from "kysely";
import { AppError, badRequest } from "../../errors.ts";
import * as access from "../../infra/access/mod.ts";
import { isUniqueViolation } from "../../infra/db/errors.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import * as files from "../files/repository.ts";
import {
  confirmUploads,
  issueUploadTicket,
  reissueUploadTicket,
  type UploadTicketView,
} from "../files/uploads.ts";
import { findSecret } from "../../infra/render/scene/secrets.ts";
import type { Trx } from "../../schema.ts";
import type { TargetlessDeps } from "./deps.ts";
import { fingerprint } from "../../infra/lib/canonical_json.ts";
import { checkModeRules, type CreateContentInput } from "./inputs.ts";
import { createDisplayPresentation } from "./manual.ts";
import { resolveOutputProfile } from "./output_profile.ts";
import { generateSceneQueue } from "./queues.ts";
import * as repo from "./repository.ts";
import type { OutputProfile, StoredAsset, TargetlessContentsTable } from "./tables.ts";
import { type ContentView, toContentView } from "./views.ts";

/** What an owner check of this kind answers (src/infra/access/mod.ts). */
export const CONTENT = access.hidden("content", "Content not found");

type ContentRow = Selectable<TargetlessContentsTable>;

/** CONTRACT.md: image assets are PNG or JPEG (sniffed at confirm). */
const ASSET_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg"]);

/** A concurrent confirm got there first: this one changes nothing. */
class AlreadyConfirmed extends Error {}

/** A created (or replayed) content. */
export interface CreatedContent {
  content: ContentView;
  /** True when an Idempotency-Key replay answered with the content made before. */
  replayed: boolean;
}

export class ContentsService {
  constructor(private readonly deps: TargetlessDeps) {}

  /**
   * `POST {prefix}/contents`. Order: the mode table and output profile (400), secrets (400), the
   * display's owner (404/403), an Idempotency-Key replay (the first content, or 409 with another
   * body), the plan gate of `auto` (403/402), then one transaction: the key, the tickets, the row.
   */
  async create(userId: string, input: CreateContentInput, key?: string): Promise<CreatedContent> {
    const { db, store, limits } = this.deps;
    checkModeRules(input);
    let profile: OutputProfile | null = null;
    if (input.mode !== "manual") {
      const resolved = resolveOutputProfile(input.output ?? {}, limits.maxRenditionPixels);
      if (!resolved.ok) throw badRequest(resolved.message);
      profile = resolved.profile;
    }
    // SPEC 2.11 rule 7: what a Scene is made from never carries a credential either.
    const secret = findSecret({ title: input.title, intent: input.intent, assets: input.assets });
    if (secret) throw badRequest(`Content must not contain ${secret.kind} at ${secret.path}`);
    const displayId = input.mode === "manual" ? input.displayId! : null;
    if (displayId) await this.deps.devices.owned(userId, displayId);
    const print = fingerprint(input);
    if (key) {
      const earlier = await this.replay(userId, key, print);
      if (earlier) return { content: earlier, replayed: true };
    }
    // CONTRACT.md: the entitlement is checked before anything is stored.
    if (input.mode === "auto") await this.deps.billing.requirePro(userId);
    try {
      const { row, tickets } = await db.transaction().execute(async (trx) => {
        const id = uuidv7();
        // First, so a concurrent request with the same key waits here and then replays.
        if (key) {
          await repo.insertIdempotencyKey(trx, {
            user_id: userId,
            scope: "contents",
            key,
            fingerprint: print,
            resource_id: id,
          });
        }
        const tickets = new Map<string, UploadTicketView>();
        const assets: StoredAsset[] = [];
        for (const asset of input.assets ?? []) {
          if (asset.type !== "image") {
            assets.push(asset);
            continue;
          }
          const ticket = await issueUploadTicket(trx, store, {
            userId,
            // A display's uploads go with the display when it is unbound (SPEC 3.6).
            deviceId: displayId,
            purpose: "targetless_asset",
            scope: displayId ? `${displayId}/targetless/${id}` : `targetless/${id}`,
            contentType: asset.contentType,
            sizeBytes: asset.sizeBytes,
          });
          tickets.set(ticket.fileId, ticket);
          assets.push({ ...asset, fileId: ticket.fileId });
        }
        const row = await repo.insertContent(trx, {
          id,
          user_id: userId,
          mode: input.mode,
          intent: input.intent ?? "",
          title: input.title ?? "",
          output: profile === null ? null : repo.json(profile),
          display_id: displayId,
          assets: repo.json(assets),
          state: "uploading",
        });
        return { row, tickets };
      });
      return { content: toContentView(row, [], tickets), replayed: false };
    } catch (error) {
      if (key && isUniqueViolation(error, "targetless_idempotency_keys_pkey")) {
        const earlier = await this.replay(userId, key, print);
        if (earlier) return { content: earlier, replayed: true };
      }
      throw error;
    }
  }

  /** The content an Idempotency-Key names, or null; 409 when it named another request. */
  private async replay(userId: string, key: string, print: string) {
    const seen = await repo.findIdempotencyKey(this.deps.db, userId, "contents", key);
    if (!seen) return null;
    if (seen.fingerprint !== print) {
      throw new AppError(
        "invalid_state",
        "Idempotency-Key was already used with a different request",
      );
    }
    const row = await repo.findContent(this.deps.db, userId, seen.resource_id);
    return row ? await this.view(row) : null;
  }

  /** `GET {prefix}/contents/{id}`: 404 for an id that is not the caller's content. */
  async get(userId: string, id: string): Promise<ContentView> {
    return await this.view(await this.owned(userId, id));
  }

  private async owned(userId: string, id: string): Promise<ContentRow> {
    return access.found(CONTENT, await repo.findContent(this.deps.db, userId, id));
  }

  /** The content as the API shows it: fresh tickets while uploading, manual state derived. */
  async view(row: ContentRow): Promise<ContentView> {
    const { db, store } = this.deps;
    const presentationIds = (await repo.presentationIdsOf(db, [row.id])).get(row.id) ?? [];
    const tickets = new Map<string, UploadTicketView>();
    if (row.state === "uploading") {
      for (const file of await files.findFilesOfUser(db, row.user_id, imageIds(row))) {
        if (file.status === "pending") tickets.set(file.id, await reissueUploadTicket(store, file));
      }
    }
    let state = row.state;
    // A manual content is ready once its push is rendered, failed when that failed for good.
    if (row.mode === "manual" && state === "processing" && presentationIds[0]) {
      const presentation = await repo.findPresentation(db, row.user_id, presentationIds[0]);
      const shown = presentation?.wire_state;
      state = shown === "failed" ? "failed" : shown === "preparing" ? "processing" : "ready";
    }
    return toContentView(row, presentationIds, tickets, state);
  }

  /**
   * `POST {prefix}/contents/{id}/confirm`: checks every image asset was uploaded (409
   * `invalid_state` if not), then starts processing in the transaction that confirms them.
   * Confirming again, or concurrently, starts nothing twice and answers the content.
   */
  async confirm(userId: string, id: string): Promise<ContentView> {
    const { db, store } = this.deps;
    const content = await this.owned(userId, id);
    if (content.state !== "uploading") return await this.view(content);
    if (content.display_id) await this.deps.devices.owned(userId, content.display_id);
    const ids = imageIds(content);
    const rows = (await files.findFilesOfUser(db, userId, ids))
      .sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
    if (rows.length !== ids.length) {
      throw new AppError("invalid_state", "An image asset of this content no longer exists");
    }
    let started: ContentRow;
    try {
      started = await confirmUploads(
        db,
        store,
        rows,
        { types: ASSET_TYPES, typeNames: "PNG or JPEG" },
        async (trx, confirmed) => {
          const locked = await repo.lockContent(trx, id);
          if (locked?.state !== "uploading") throw new AlreadyConfirmed();
          await this.start(trx, locked, confirmed.map((c) => c.key));
          return await repo.setContentState(trx, id, "processing");
        },
      );
    } catch (error) {
      const fresh = await this.owned(userId, id);
      if (error instanceof AlreadyConfirmed || fresh.state !== "uploading") {
        return await this.view(fresh);
      }
      // CONTRACT.md: a missing (or unusable) upload answers 409 invalid_state.
      if (error instanceof AppError && error.status === 409) {
        throw new AppError("invalid_state", error.message);
      }
      throw error;
    }
    // CONTRACT.md: the answer is the content as confirm left it (`processing`), even when a fast
    // job has finished it since; the next read shows that.
    return await this.view(started);
  }

  /** What confirm starts: the Scene job, or (manual) the push and its presentation. */
  private async start(trx: Trx, content: ContentRow, sourceKeys: string[]) {
    if (content.mode === "manual") {
      await createDisplayPresentation(trx, this.deps, content, sourceKeys[0]);
    } else {
      await this.deps.jobs.send(generateSceneQueue, { contentId: content.id }, { trx });
    }
  }
}

/** File ids of a content's image assets, in order. */
export function imageIds(row: { assets: StoredAsset[] }): string[] {
  return row.assets.flatMap((asset) => asset.type === "image" ? [asset.fileId] : []);
}
