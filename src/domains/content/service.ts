/**
 * Raw items (SPEC 4.6, CONTRACT.md "Content pipeline"): a note and up to 10 pictures uploaded
 * with tickets, confirmed as one unit (the summary stage is enqueued in the confirm transaction),
 * listed, counted, and their files handed out as signed URLs. Another user's item or file is 404.
 */
import type { Selectable } from "kysely";
import { type Log, silentLog } from "../../infra/lib/log.ts";
import type { Db, Trx } from "../../schema.ts";
import { badRequest } from "../../errors.ts";
import * as access from "../../infra/access/mod.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import type { Jobs } from "../../infra/jobs/types.ts";
import type { ObjectStore } from "../../infra/storage/object_store.ts";
import * as files from "../files/repository.ts";
import { confirmUploads, issueUploadTicket, type UploadTicketView } from "../files/uploads.ts";
import { RENDERABLE_NAMES, RENDERABLE_TYPES } from "../../infra/render/types.ts";
import { anchorOf, keysetPage } from "../../infra/lib/cursor.ts";
import { URL_TTL_SECONDS } from "../pushes/service.ts";
import { summarizeQueue } from "./queues.ts";
import * as repo from "./repository.ts";
import type { RawItemsTable, RawItemStatus } from "./tables.ts";
import { type RawItemView, toRawItem } from "./views.ts";

/** What an owner check of this kind answers (src/infra/access/mod.ts). */
export const RAW_ITEM = access.hidden("rawItem", "Raw item not found");

/** A confirmed file of one of the caller's raw items. */
export const FILE = access.hidden("file", "File not found");

type RawItemRow = Selectable<RawItemsTable>;

/** CONTRACT.md: a note of up to 20,000 characters and up to 10 pictures. */
export const MAX_TEXT_CHARS = 20_000;
export const MAX_TITLE_CHARS = 200;
export const MAX_ATTACHMENTS = 10;
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 50;
const STATS_DAYS = 7;

export interface NewRawItem {
  title?: string;
  text?: string;
  attachments?: Array<{ contentType: string; sizeBytes: number; filename?: string }>;
}

const chars = (s: string) => [...s].length;

/** Refused before anything is stored: PostgreSQL cannot hold NUL (docs/decisions.md). */
function checkText(name: string, value: string | undefined, max: number) {
  if (value === undefined) return;
  if (chars(value) > max) throw badRequest(`${name} is over ${max} characters`);
  if (value.includes("\u0000")) throw badRequest(`${name} must not contain NUL characters`);
}

/** What `ContentService` is built from (one object, like every domain's service). */
export interface ContentServiceDeps {
  db: Db;
  store: ObjectStore;
  jobs: Jobs;
  log?: Log;
}

export class ContentService {
  readonly db: Db;
  readonly store: ObjectStore;
  private readonly jobs: Jobs;
  private readonly log: Log;

  constructor(deps: ContentServiceDeps) {
    this.db = deps.db;
    this.store = deps.store;
    this.jobs = deps.jobs;
    this.log = deps.log ?? silentLog;
  }

  /** 404 unless the item is the caller's (SPEC 5.8). */
  async owned(userId: string, id: string): Promise<RawItemRow> {
    return access.found(RAW_ITEM, await repo.findOwnedRawItem(this.db, userId, id));
  }

  /** The wire shapes of rows: attachments and the agent's pushes joined in. */
  async views(rows: RawItemRow[]): Promise<RawItemView[]> {
    const ids = rows.map((r) => r.id);
    const [attachments, pushes] = await Promise.all([
      repo.attachmentsOf(this.db, ids),
      repo.pushesOfItems(this.db, ids),
    ]);
    return await Promise.all(rows.map(async (row) => {
      const own = attachments.filter((a) => a.raw_item_id === row.id);
      // Before confirm, "uploaded" says whether the picture has arrived in storage yet.
      const withState = row.status === "uploading"
        ? await Promise.all(own.map(async (a) => ({
          ...a,
          uploaded: (await this.store.head(a.object_key).catch(() => null)) !== null,
        })))
        : own;
      const pushIds = [
        ...new Set(pushes.filter((p) => p.raw_item_id === row.id).map((p) => p.push_id)),
      ];
      return toRawItem(row, withState, pushIds);
    }));
  }

  async view(row: RawItemRow): Promise<RawItemView> {
    return (await this.views([row]))[0];
  }

  /**
   * `POST /api/raw-items/upload`: the item in `uploading` and one upload ticket per picture, in
   * one transaction. A note (non-blank text) or at least one picture, else 400.
   */
  async upload(userId: string, input: NewRawItem) {
    const text = input.text?.trim() ? input.text : undefined;
    const title = input.title?.trim() ? input.title.trim() : undefined;
    const attachments = input.attachments ?? [];
    checkText("title", title, MAX_TITLE_CHARS);
    checkText("text", text, MAX_TEXT_CHARS);
    if (attachments.length > MAX_ATTACHMENTS) {
      throw badRequest(`A raw item takes at most ${MAX_ATTACHMENTS} attachments`);
    }
    if (!text && attachments.length === 0) {
      throw badRequest("A raw item needs a note (text) or at least one attachment");
    }
    attachments.forEach((a, i) => checkText(`attachments.${i}.filename`, a.filename, 255));
    const id = uuidv7();
    return await this.db.transaction().execute(async (trx) => {
      const row = await repo.insertRawItem(trx, {
        id,
        user_id: userId,
        title: title ?? null,
        text: text ?? null,
        status: "uploading",
      });
      const tickets: UploadTicketView[] = [];
      for (const [position, attachment] of attachments.entries()) {
        // 400 for a type that is not image/*, 413 over 10 MB (the custom-push ticket rules).
        const ticket = await issueUploadTicket(trx, this.store, {
          userId,
          deviceId: null,
          purpose: "raw_item_attachment",
          scope: `raw-items/${id}`,
          contentType: attachment.contentType,
          sizeBytes: attachment.sizeBytes,
        });
        await repo.insertAttachment(trx, {
          raw_item_id: id,
          position,
          file_id: ticket.fileId,
          filename: attachment.filename ?? null,
        });
        tickets.push(ticket);
      }
      const view = toRawItem(
        row,
        attachments.map((a, i) => ({
          file_id: tickets[i].fileId,
          content_type: a.contentType.trim().toLowerCase(),
          size_bytes: a.sizeBytes,
          filename: a.filename ?? null,
          status: "pending",
          uploaded: false,
        })),
        [],
      );
      return {
        ...view,
        attachments: view.attachments.map((a, i) => ({ ...a, upload: tickets[i] })),
      };
    });
  }

  /**
   * `POST /api/raw-items/{id}/confirm`: every picture must be uploaded (409 naming the first that
   * is not); the pictures are confirmed, the item moves to `processing` and the summary stage is
   * enqueued, in one transaction. An item past `uploading` is answered as it is: a second confirm
   * starts nothing new.
   */
  async confirm(userId: string, id: string): Promise<RawItemView> {
    const item = await this.owned(userId, id);
    if (item.status !== "uploading") return await this.view(item);
    const attachments = await repo.attachmentsOf(this.db, [id]);
    const rows = [];
    for (const a of attachments) {
      const file = await files.findFile(this.db, a.file_id);
      if (file) rows.push(file);
    }
    let confirmed = false;
    try {
      confirmed = await confirmUploads(
        this.db,
        this.store,
        rows,
        { types: RENDERABLE_TYPES, typeNames: RENDERABLE_NAMES },
        async (trx: Trx) => {
          const locked = await repo.lockRawItem(trx, id);
          if (locked?.status !== "uploading") return false;
          await repo.updateRawItem(trx, id, { status: "processing", confirmed_at: new Date() });
          await this.jobs.send(summarizeQueue, { rawItemId: id }, { trx });
          return true;
        },
      );
    } catch (error) {
      // A concurrent confirm that won took the pictures: answer like a second confirm.
      const now = await this.owned(userId, id);
      if (now.status === "uploading") throw error;
    }
    const current = await this.owned(userId, id);
    if (confirmed) this.log.info("raw item confirmed", { rawItemId: id });
    return await this.view(current);
  }

  async get(userId: string, id: string): Promise<RawItemView> {
    return await this.view(await this.owned(userId, id));
  }

  /** `GET /api/raw-items`: newest first, keyset cursor on (createdAt, id). */
  async list(userId: string, input: { status?: RawItemStatus; cursor?: string; limit?: number }) {
    const after = anchorOf(input.cursor);
    const limit = Math.min(input.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
    const rows = await repo.listRawItems(this.db, userId, { status: input.status, after, limit });
    return await keysetPage(rows, limit, (page) => this.views(page));
  }

  /** `GET /api/raw-items/stats`: the last 7 UTC days, today included, oldest first. */
  async getStats(userId: string, now = new Date()) {
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const from = new Date(today - (STATS_DAYS - 1) * 86_400_000);
    const [uploaded, summarized, failed, pushes] = await Promise.all([
      repo.countItemsByDay(this.db, userId, "created_at", from),
      repo.countItemsByDay(this.db, userId, "summarized_at", from),
      repo.countItemsByDay(this.db, userId, "failed_at", from),
      repo.countPushesByDay(this.db, userId, from),
    ]);
    const of = (rows: Array<{ day: string; n: unknown }>, day: string) =>
      Number(rows.find((r) => r.day === day)?.n ?? 0);
    const days = Array.from({ length: STATS_DAYS }, (_, i) => {
      const date = new Date(from.getTime() + i * 86_400_000).toISOString().slice(0, 10);
      return {
        date,
        uploaded: of(uploaded, date),
        summarized: of(summarized, date),
        failed: of(failed, date),
        pushes: of(pushes, date),
      };
    });
    const sum = (key: "uploaded" | "summarized" | "failed" | "pushes") =>
      days.reduce((n, d) => n + d[key], 0);
    return {
      from: from.toISOString(),
      to: now.toISOString(),
      totals: {
        uploaded: sum("uploaded"),
        summarized: sum("summarized"),
        failed: sum("failed"),
        pushes: sum("pushes"),
      },
      days,
    };
  }

  /**
   * `GET /api/files/{fileId}/download`: a signed URL (15 minutes) of one of the caller's
   * confirmed files; anything else, another user's included, is 404.
   */
  async fileUrl(userId: string, fileId: string): Promise<string> {
    const file = await files.findUserFile(this.db, userId, fileId);
    if (!file || file.status !== "confirmed") throw access.missing(FILE);
    return await this.store.signedGetUrl(file.object_key, URL_TTL_SECONDS);
  }

  /**
   * Bytes of the user's confirmed files by id (template pictures, previews). Ids that are not
   * the user's confirmed files are left out: the renderer then refuses the variable (400).
   */
  async imagesOf(userId: string, fileIds: string[]): Promise<Record<string, Uint8Array>> {
    const images: Record<string, Uint8Array> = {};
    for (const file of await files.confirmedUserFiles(this.db, userId, fileIds)) {
      const bytes = await this.store.get(file.object_key);
      if (bytes) images[file.id] = bytes;
    }
    return images;
  }

  /** SPEC 4.1 account deletion, in its transaction: raw items, their pictures' records, runs. */
  async deleteAllOf(trx: Trx, userId: string): Promise<void> {
    const fileIds = await repo.deleteAllOf(trx, userId);
    await files.deleteFilesById(trx, fileIds);
  }
}
