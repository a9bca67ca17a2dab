/** Waiting on something that may never settle (a probe, a heartbeat) for a bounded time. */

/** `work`'s value, or `fallback` if it has not settled within `ms`; the timer never outlives it. */
export async function within<T>(work: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<T>((resolve) => timer = setTimeout(() => resolve(fallback), ms)),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
