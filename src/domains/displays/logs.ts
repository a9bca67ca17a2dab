/**
 * A display's own log entries (`POST /api/log`), read by its owner (`GET /api/devices/{id}/logs`),
 * kept within bounds (CONTRACT.md "Display ownership and fair shares").
 */
import type { Db } from "../../schema.ts";
import { badRequest } from "../../errors.ts";
import type { DevicesService } from "../devices/service.ts";
import { isStorableJson } from "../devices/report_payload.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import { anchorOf, keysetPage } from "../../infra/lib/cursor.ts";
import type { DisplayKeys } from "./keys.ts";
import * as repo from "./repository.ts";
import { toLogItem } from "./views.ts";

/** CONTRACT.md: a display keeps its last 1,000 log entries, within 1 MiB. */
export const LOGS_KEPT = 1000;
export const LOG_BYTES_KEPT = 1024 * 1024;
/** CONTRACT.md: an entry is kept up to 4 KiB; a longer one is cut and marked. */
export const LOG_ENTRY_MAX_BYTES = 4096;
/**
 * An entry as it is kept: itself up to 4 KiB of JSON, else its JSON text cut to fit and marked
 * (`truncated`, the size it had), so the owner still reads its start.
 */
export function keptEntry(entry: Record<string, unknown>): Record<string, unknown> {
  const json = JSON.stringify(entry);
  const size = utf8Length(json);
  if (size <= LOG_ENTRY_MAX_BYTES) return entry;
  // Room for the marker's own fields; cut by characters, then by bytes until it fits.
  let excerpt = json.slice(0, LOG_ENTRY_MAX_BYTES - 128);
  while (utf8Length(excerpt) > LOG_ENTRY_MAX_BYTES - 128) excerpt = excerpt.slice(0, -64);
  return { truncated: true, bytes: size, excerpt };
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}
/** CONTRACT.md: `POST /api/log` bodies up to 64 KiB. */
export const LOG_BODY_LIMIT = 64 * 1024;
const LOG_PAGE = 20;
const LOG_PAGE_MAX = 50;

/** The entries of either log shape TRMNL's firmware sends; 400 for anything else. */
export function logEntries(body: unknown): Record<string, unknown>[] {
  const shape = body as { logs?: unknown; log?: { logs_array?: unknown } } | null;
  const list = Array.isArray(shape?.logs)
    ? shape.logs
    : Array.isArray(shape?.log?.logs_array)
    ? shape.log.logs_array
    : null;
  if (list === null) {
    throw badRequest('Body must be {"logs":[...]} or {"log":{"logs_array":[...]}}');
  }
  for (const entry of list) {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      throw badRequest("Each log entry must be a JSON object");
    }
    if (!isStorableJson(entry)) throw badRequest("A log entry cannot be stored (NUL or too deep)");
  }
  return list as Record<string, unknown>[];
}

export class DisplayLogs {
  constructor(
    private readonly db: Db,
    private readonly keys: DisplayKeys,
    private readonly devices: DevicesService,
  ) {}

  /**
   * `POST /api/log`: a claimed display's entries are kept (its newest 1,000 within 1 MiB, each
   * entry up to 4 KiB: a longer one is cut and marked); a pending display's are accepted and
   * dropped (no owner could read them).
   */
  async receive(token: string | null, body: unknown): Promise<void> {
    const display = await this.keys.authenticate(token);
    const entries = logEntries(body);
    if (display.status !== "claimed" || !display.device_id) return;
    const deviceId = display.device_id;
    const text = (value: unknown, max: number, fallback: string) =>
      typeof value === "string" && value.length > 0 ? value.slice(0, max) : fallback;
    const kept = entries.slice(-LOGS_KEPT);
    // One receipt time for the batch: ids in ascending order keep the entries' own order.
    const ids = kept.map(() => uuidv7()).sort();
    await repo.insertLogs(
      this.db,
      deviceId,
      kept.map((sent, i) => {
        const entry = keptEntry(sent);
        const message = text(sent.message, 1000, "");
        return {
          id: ids[i],
          device_id: deviceId,
          level: text(sent.level, 16, "info"),
          message,
          entry,
          bytes: utf8Length(JSON.stringify(entry)) + utf8Length(message),
        };
      }),
      { keep: LOGS_KEPT, maxBytes: LOG_BYTES_KEPT },
    );
  }
  /** `GET /api/devices/{id}/logs`: newest first, paged like pushes. */
  async list(userId: string, deviceId: string, input: { cursor?: string; limit?: number }) {
    await this.devices.owned(userId, deviceId);
    const after = anchorOf(input.cursor);
    const limit = Math.min(input.limit ?? LOG_PAGE, LOG_PAGE_MAX);
    const rows = await repo.listLogs(this.db, deviceId, after, limit);
    return await keysetPage(rows, limit, (page) => page.map(toLogItem));
  }
}
