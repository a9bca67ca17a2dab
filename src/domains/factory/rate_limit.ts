/**
 * Fixed-window rate limits per key. The factory download limit (SPEC 4.8/8) is counted in
 * PostgreSQL (migrations/0800_factory_rate_windows.sql) so that N API processes share it; the
 * in-process limiter only throttles the audit rows of anonymous refusals (a flood guard whose
 * bound may well be per process).
 */
import { hitRateWindow as hitWindow } from "../../infra/db/rate_windows.ts";
import type { Db } from "../../schema.ts";

/** Counts one hit of `key` in the factory's windows (see `hitRateWindow`). */
export function hitRateWindow(
  db: Db,
  key: string,
  limit: number,
  windowSeconds: number,
): Promise<number | null> {
  return hitWindow(db, "factory_rate_windows", key, limit, windowSeconds);
}

/** In-process fixed window (per process by design: see the file comment). */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(readonly limit: number, readonly windowMs: number) {}

  /** Counts one hit; returns null when allowed, else the seconds until the window reopens. */
  hit(key: string, now = Date.now()): number | null {
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    if (w.count >= this.limit) {
      return Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
    }
    w.count++;
    return null;
  }
}
