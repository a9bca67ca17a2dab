/**
 * A PostgreSQL cluster of the test's own, in a temporary directory on a free port, that the test
 * may stop and start again (the machine's shared cluster on 5432 is never touched). PostgreSQL
 * refuses to run as root, so as root the cluster belongs to the `postgres` OS user.
 */
import { freePort } from "./ports.ts";

export const PG_BIN = "/usr/lib/postgresql/15/bin";

export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:{port}/postgres`, trust authentication. */
  url: string;
  port: number;
  /** Starts the cluster (again) on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it: `fast` ends sessions cleanly, `immediate` is a crash (recovery on next start). */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Stops the cluster and removes its directory. */
  dispose(): Promise<void>;
}

/** True when the binaries are there (tests skip otherwise). */
export function pgAvailable(): boolean {
  try {
    Deno.statSync(`${PG_BIN}/pg_ctl`);
    return true;
  } catch {
    return false;
  }
}

async function run(args: string[], asPostgres: boolean): Promise<string> {
  const [cmd, ...rest] = asPostgres ? ["runuser", "-u", "postgres", "--", ...args] : args;
  const out = await new Deno.Command(cmd, { args: rest, stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`${args.join(" ")} failed: ${text}`);
  return text;
}

/** Creates and starts a fresh cluster; `dispose()` it in a `finally`. */
export async function privatePgCluster(): Promise<PgCluster> {
  const asPostgres = Deno.uid() === 0;
  const dir = await Deno.makeTempDir({ prefix: "dds-pg-" });
  const data = `${dir}/data`;
  if (asPostgres) await run(["chown", "postgres:postgres", dir], false);
  const port = freePort();
  await run(
    [`${PG_BIN}/initdb`, "-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"],
    asPostgres,
  );
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`;
  let running = false;

  async function start() {
    if (running) return;
    await run(
      [`${PG_BIN}/pg_ctl`, "-D", data, "-o", options, "-l", `${dir}/log`, "-w", "start"],
      asPostgres,
    );
    running = true;
  }

  async function stop(mode: "fast" | "immediate" = "fast") {
    if (!running) return;
    running = false;
    await run([`${PG_BIN}/pg_ctl`, "-D", data, "-m", mode, "-w", "stop"], asPostgres);
  }

  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    async dispose() {
      await stop("immediate").catch(() => {});
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
