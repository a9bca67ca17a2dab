/** What a service needs of the logger: it is injected, so no service writes to the console. */
export interface Log {
  info(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** A log that drops everything (tests, tools). */
export const silentLog: Log = { info: () => {}, error: () => {} };
