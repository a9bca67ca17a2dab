/**
 * Webhook delivery fairness (issue 33 item 3): the service runs in a child process; an attacker
 * user has 20 webhooks to endpoints that hold each request 30 s, a victim one fast endpoint.
 * Events are displays' first polls (`device.online`): the attacker's displays first (20
 * deliveries each), then the victim's, one at a time. Prints how long the victim's deliveries
 * took from the poll that caused them to their arrival, beside the attacker's (to the moment a
 * held request arrived), and beside a baseline run of the victim alone. Loopback only; bounded
 * (30 s holds, a minute's wait at most per victim event).
 * Run alone: `deno run -A bench/webhook_fairness.ts` (DATABASE_URL for PostgreSQL).
 */
import {
  type BenchRow,
  median,
  printTable,
  registerBenchUser,
  startServiceProcess,
} from "./lib.ts";

const ATTACKER_HOOKS = 20;
const ATTACKER_DISPLAYS = 3;
const VICTIM_EVENTS = 5;
const HOLD_MS = 30_000;
const WAIT_MS = 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The receivers: `/hold/<n>` answers after 30 s, `/victim` at once; arrivals by path. */
function startReceiver() {
  const arrivals = new Map<string, number[]>();
  const waiting: Array<() => void> = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    await req.text();
    const key = path.startsWith("/hold/") ? "hold" : path;
    arrivals.set(key, [...arrivals.get(key) ?? [], performance.now()]);
    for (const wake of waiting.splice(0)) wake();
    if (key === "hold") {
      await Promise.race([
        sleep(HOLD_MS),
        new Promise((r) => req.signal.addEventListener("abort", r, { once: true })),
      ]);
    }
    return new Response(null, { status: 204 });
  });
  return {
    url: (path: string) => `http://127.0.0.1:${server.addr.port}${path}`,
    arrivals: (key: string) => arrivals.get(key) ?? [],
    /** Resolves at the next arrival (or after `ms`). */
    next: (ms: number) =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        setTimeout(resolve, ms);
      }),
    close: () => server.shutdown(),
  };
}

type Receiver = ReturnType<typeof startReceiver>;

/** A display set up, claimed by the user and not polled yet: its first poll is device.online. */
async function display(base: string, token: string, mac: string) {
  const setup = await (await fetch(`${base}/api/setup`, { headers: { ID: mac } })).json();
  const res = await fetch(`${base}/api/devices/claim`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ code: setup.friendly_id }),
  });
  await res.body?.cancel();
  if (!res.ok) throw new Error(`claim answered ${res.status}`);
  return async () => {
    const poll = await fetch(`${base}/api/display`, {
      headers: { ID: mac, "Access-Token": setup.api_key, "FW-Version": "1.6.2", Model: "og" },
    });
    await poll.body?.cancel();
    if (!poll.ok) throw new Error(`poll answered ${poll.status}`);
  };
}

async function webhook(base: string, token: string, url: string) {
  const res = await fetch(`${base}/api/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ url, events: ["device.online"] }),
  });
  await res.body?.cancel();
  if (res.status !== 201) throw new Error(`webhook answered ${res.status}`);
}

const mac = (run: number, who: number, i: number) =>
  `AA:BB:${run.toString(16).padStart(2, "0")}:${who.toString(16).padStart(2, "0")}:00:${
    i.toString(16).padStart(2, "0")
  }`.toUpperCase();

/** One run on a fresh service: the victim's latencies (ms), and the attacker's, if any. */
async function run(
  receiver: Receiver,
  env: Record<string, string>,
  attack: boolean,
  runNo: number,
) {
  const service = await startServiceProcess({ ...env, WEBHOOK_ALLOW_PRIVATE: "1" });
  try {
    const base = service.url;
    const stamp = `${runNo}${Date.now().toString(36)}`;
    const victim = await registerBenchUser(base, `victim${stamp}`);
    await webhook(base, victim.accessToken, receiver.url("/victim"));
    const victimPolls = [];
    for (let i = 0; i < VICTIM_EVENTS; i++) {
      victimPolls.push(await display(base, victim.accessToken, mac(runNo, 1, i)));
    }
    const attacker: number[] = [];
    const holdsBefore = receiver.arrivals("hold").length;
    let attackStarted = 0;
    if (attack) {
      const user = await registerBenchUser(base, `attacker${stamp}`);
      for (let i = 0; i < ATTACKER_HOOKS; i++) {
        await webhook(base, user.accessToken, receiver.url(`/hold/${runNo}/${i}`));
      }
      const polls = [];
      for (let i = 0; i < ATTACKER_DISPLAYS; i++) {
        polls.push(await display(base, user.accessToken, mac(runNo, 2, i)));
      }
      attackStarted = performance.now();
      for (const poll of polls) await poll();
      // The attacker's first deliveries are holding their slots before the victim's events.
      while (receiver.arrivals("hold").length === holdsBefore) await receiver.next(1000);
    }
    const victimLatency: number[] = [];
    for (const poll of victimPolls) {
      const before = receiver.arrivals("/victim").length;
      const t0 = performance.now();
      await poll();
      while (receiver.arrivals("/victim").length === before && performance.now() - t0 < WAIT_MS) {
        await receiver.next(WAIT_MS);
      }
      const arrived = receiver.arrivals("/victim")[before];
      victimLatency.push(arrived === undefined ? WAIT_MS : arrived - t0);
      await sleep(500);
    }
    console.error(
      `victim deliveries${attack ? " beside the attacker" : " alone"}: ${
        victimLatency.map((ms) => Math.round(ms)).join(", ")
      } ms`,
    );
    if (attack) {
      for (const at of receiver.arrivals("hold").slice(holdsBefore)) {
        attacker.push(at - attackStarted);
      }
    }
    return { victimLatency, attacker };
  } finally {
    await service.stop();
  }
}

export async function benchWebhookFairness(
  options: { databaseUrl?: string } = {},
): Promise<BenchRow[]> {
  const env: Record<string, string> = options.databaseUrl
    ? { DATABASE_URL: options.databaseUrl }
    : {};
  const receiver = startReceiver();
  const rows: BenchRow[] = [];
  const round = (ms: number) => Math.round(ms);
  try {
    const baseline = await run(receiver, env, false, 1);
    const attacked = await run(receiver, env, true, 2);
    rows.push(
      {
        name: "webhook victim, alone: delivery p50",
        value: round(median(baseline.victimLatency)),
        unit: "ms",
      },
      {
        name: "webhook victim, alone: delivery max",
        value: round(Math.max(...baseline.victimLatency)),
        unit: "ms",
      },
      {
        name: `webhook victim, beside ${ATTACKER_HOOKS} held targets: delivery p50`,
        value: round(median(attacked.victimLatency)),
        unit: "ms",
      },
      {
        name: `webhook victim, beside ${ATTACKER_HOOKS} held targets: delivery max`,
        value: round(Math.max(...attacked.victimLatency)),
        unit: "ms",
      },
      {
        name: "webhook attacker: requests that reached a held target",
        value: attacked.attacker.length,
        unit: `of ${ATTACKER_HOOKS * ATTACKER_DISPLAYS} deliveries`,
      },
      {
        name: "webhook attacker: first arrival after its events",
        value: round(attacked.attacker[0] ?? NaN),
        unit: "ms",
      },
      {
        name: "webhook attacker: last arrival while measured",
        value: round(attacked.attacker.at(-1) ?? NaN),
        unit: "ms",
      },
    );
  } finally {
    await receiver.close();
  }
  return rows;
}

if (import.meta.main) {
  printTable(await benchWebhookFairness({ databaseUrl: Deno.env.get("DATABASE_URL") }));
  Deno.exit(0);
}
