/**
 * The MCP endpoint's cost per call (issue 24): `tools/call list_devices` on `/mcp` against its
 * baseline `GET /api/devices` in the same run, same PAT, same service process. The difference is
 * the stateless design's price: a server and transport built per request, the JSON-RPC envelope.
 */
import {
  type BenchRow,
  load,
  median,
  printTable,
  registerBenchUser,
  startServiceProcess,
} from "./lib.ts";

type Measured = Awaited<ReturnType<typeof load>>;

export async function benchMcp(env: Record<string, string> = {}): Promise<BenchRow[]> {
  const service = await startServiceProcess(env);
  try {
    const user = await registerBenchUser(service.url, `mcp${Date.now().toString(36)}`);
    const created = await fetch(`${service.url}/api/personal-access-tokens`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${user.accessToken}`,
      },
      body: JSON.stringify({ name: "bench" }),
    });
    const { token } = await created.json();
    const auth = { authorization: `Bearer ${token}` };
    const rest = async () => {
      const res = await fetch(`${service.url}/api/devices`, { headers: auth });
      await res.body?.cancel();
      if (res.status !== 200) throw new Error(`GET /api/devices answered ${res.status}`);
    };
    const rpc = (method: string, params: unknown) => async () => {
      const res = await fetch(`${service.url}/mcp`, {
        method: "POST",
        headers: {
          ...auth,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      });
      const body = await res.json();
      if (res.status !== 200 || body.error || body.result?.isError) {
        throw new Error(`POST /mcp ${method} answered ${res.status} ${JSON.stringify(body)}`);
      }
    };
    const call = rpc("tools/call", { name: "list_devices", arguments: {} });
    const list = rpc("tools/list", {});
    await load(rest, { total: 200, concurrency: 8 }); // warm-up
    await load(call, { total: 200, concurrency: 8 });
    // Alternating rounds, the median of each: a busy machine slows both sides alike.
    const rounds = { rest: [] as Measured[], call: [] as Measured[], list: [] as Measured[] };
    for (let round = 0; round < 3; round++) {
      rounds.rest.push(await load(rest, { total: 1000, concurrency: 16 }));
      rounds.call.push(await load(call, { total: 1000, concurrency: 16 }));
      rounds.list.push(await load(list, { total: 300, concurrency: 16 }));
    }
    const mid = (all: Measured[]) => ({
      rps: median(all.map((m) => m.rps)),
      p50: median(all.map((m) => m.p50)),
      p99: median(all.map((m) => m.p99)),
    });
    const baseline = mid(rounds.rest);
    const mcp = mid(rounds.call);
    const tools = mid(rounds.list);
    const db = env.DATABASE_URL ? "postgres" : "pglite";
    return [
      { name: `GET /api/devices (${db}, 16 conc.) throughput`, value: baseline.rps, unit: "req/s" },
      { name: `GET /api/devices p50`, value: baseline.p50, unit: "ms" },
      { name: `MCP tools/call list_devices throughput`, value: mcp.rps, unit: "req/s" },
      { name: `MCP tools/call list_devices p50`, value: mcp.p50, unit: "ms" },
      { name: `MCP tools/call list_devices p99`, value: mcp.p99, unit: "ms" },
      { name: `MCP tools/list (10 schemas) throughput`, value: tools.rps, unit: "req/s" },
      { name: `MCP tools/list p50`, value: tools.p50, unit: "ms" },
    ];
  } finally {
    await service.stop();
  }
}

if (import.meta.main) {
  // DATABASE_URL is handed on so the service gets a scratch database on that server (lib.ts).
  const databaseUrl = Deno.env.get("DATABASE_URL");
  printTable(await benchMcp(databaseUrl ? { DATABASE_URL: databaseUrl } : {}));
}
