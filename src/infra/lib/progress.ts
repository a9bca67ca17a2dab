/**
 * Progress of long command-line work (`deno task factory`, `deno task migrate`, the bench): one
 * line per step with counts, elapsed time and, when the total is known, an ETA. Lines go to
 * stderr by default, so a tool's own output on stdout stays clean for scripts.
 */

export interface ProgressOptions {
  /** Steps expected; without it no ETA is shown. */
  total?: number;
  /** Where lines go; default stderr. */
  write?: (line: string) => void;
  /** Milliseconds clock (tests pass a fake one). */
  now?: () => number;
}

/** Seconds as `0.4s`, `12s`, `3m05s`, `1h02m`. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "?";
  if (seconds < 10) return `${seconds.toFixed(1)}s`;
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(Math.round(seconds % 60)).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`;
}

const encoder = new TextEncoder();
const toStderr = (line: string) => Deno.stderr.writeSync(encoder.encode(`${line}\n`));

/** Counts the steps of one task and prints a line for each. */
export class Progress {
  #done = 0;
  readonly #started: number;
  readonly #write: (line: string) => void;
  readonly #now: () => number;

  constructor(readonly label: string, readonly options: ProgressOptions = {}) {
    this.#write = options.write ?? toStderr;
    this.#now = options.now ?? (() => performance.now());
    this.#started = this.#now();
  }

  /** Steps done so far. */
  get done(): number {
    return this.#done;
  }

  /** Records `count` more steps and prints `label  done/total  (pct)  elapsed  ETA  detail`. */
  step(detail = "", count = 1): void {
    this.#done += count;
    const elapsed = (this.#now() - this.#started) / 1000;
    const { total } = this.options;
    const parts = [this.label];
    if (total !== undefined && total > 0) {
      const pct = Math.floor((this.#done / total) * 100);
      parts.push(`${this.#done}/${total} (${pct}%)`, formatDuration(elapsed));
      const left = total - this.#done;
      if (left > 0 && this.#done > 0) {
        parts.push(`ETA ${formatDuration((elapsed / this.#done) * left)}`);
      }
    } else {
      parts.push(String(this.#done), formatDuration(elapsed));
    }
    if (detail) parts.push(detail);
    this.#write(parts.join("  "));
  }

  /** Prints the closing line: how many steps in how long. */
  finish(detail = ""): void {
    const elapsed = (this.#now() - this.#started) / 1000;
    const line = `${this.label}  done: ${this.#done} in ${formatDuration(elapsed)}`;
    this.#write(detail ? `${line}  ${detail}` : line);
  }
}
