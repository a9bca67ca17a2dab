/**
 * A Mosquitto of the test's own, on a free port, that the test may stop and start again (the
 * machine's shared broker on 1883 is never touched). Requires /usr/sbin/mosquitto.
 */
import { freePort } from "./ports.ts";

export interface PrivateMosquitto {
  url: string;
  port: number;
  /** Starts the broker (again) on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops the broker and waits for the process to exit. */
  stop(): Promise<void>;
  /** Stops the broker and removes its files. */
  dispose(): Promise<void>;
}

export const MOSQUITTO = "/usr/sbin/mosquitto";

export async function privateMosquitto(): Promise<PrivateMosquitto> {
  const dir = await Deno.makeTempDir({ prefix: "dds-mosquitto-" });
  const port = freePort();
  const conf = `${dir}/mosquitto.conf`;
  await Deno.writeTextFile(
    conf,
    [`listener ${port} 127.0.0.1`, "allow_anonymous true", "persistence false", ""].join("\n"),
  );
  let child: Deno.ChildProcess | undefined;

  async function start() {
    if (child) return;
    child = new Deno.Command(MOSQUITTO, { args: ["-c", conf], stdout: "null", stderr: "null" })
      .spawn();
    for (let i = 0; i < 100; i++) {
      try {
        (await Deno.connect({ hostname: "127.0.0.1", port })).close();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    throw new Error(`mosquitto did not listen on ${port}`);
  }

  async function stop() {
    if (!child) return;
    const running = child;
    child = undefined;
    try {
      running.kill("SIGTERM");
    } catch { /* already gone */ }
    await running.status;
  }

  await start();
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    start,
    stop,
    async dispose() {
      await stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
