/** Structured logs: one JSON line per request; never a token, never a query string. */
import type { Log } from "../lib/log.ts";

export interface RequestLog {
  method: string;
  path: string;
  status: number;
  ms: number;
  requestId: string;
}

/** The service's logger: the services see only its `Log` half. */
export interface Logger extends Log {
  request(entry: RequestLog): void;
}

/** A logger writing JSON lines to stdout/stderr, or nothing at level `silent`. */
export function createLogger(level: "info" | "silent"): Logger {
  const line = (fields: Record<string, unknown>) =>
    JSON.stringify({ time: new Date().toISOString(), ...fields });
  return {
    request(entry) {
      if (level !== "silent") console.log(line({ level: "info", msg: "request", ...entry }));
    },
    info(msg, fields = {}) {
      if (level !== "silent") console.log(line({ level: "info", msg, ...fields }));
    },
    error(msg, fields = {}) {
      console.error(line({ level: "error", msg, ...fields }));
    },
  };
}
