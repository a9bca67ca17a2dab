/**
 * Fixed-window rate limit per key (the factory download limit, SPEC 4.8/8). In-process: one
 * service instance per factory ingress is the deployment this console is built for.
 */
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
