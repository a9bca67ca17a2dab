/** GET /auth/me and POST /auth/login under concurrent load on loopback (issue 2). */
import { type BenchRow, load, printTable, startServiceProcess } from "./lib.ts";

export async function benchAuth(env: Record<string, string> = {}): Promise<BenchRow[]> {
  const service = await startServiceProcess(env);
  try {
    const name = `bench${Date.now().toString(36)}`;
    const password = "bench password 1";
    const reg = await fetch(`${service.url}/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: `${name}@example.com`, username: name, password }),
    });
    const { accessToken } = await reg.json();
    const me = async () => {
      const res = await fetch(`${service.url}/auth/me`, {
        headers: { authorization: `Bearer ${accessToken}` },
      });
      await res.body?.cancel();
      if (res.status !== 200) throw new Error(`GET /auth/me answered ${res.status}`);
    };
    const login = async () => {
      const res = await fetch(`${service.url}/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ identifier: name, password }),
      });
      await res.body?.cancel();
      if (res.status !== 200) throw new Error(`POST /auth/login answered ${res.status}`);
    };
    await load(me, { total: 200, concurrency: 8 }); // warm-up
    const meResult = await load(me, { total: 3000, concurrency: 32 });
    const loginResult = await load(login, { total: 150, concurrency: 8 });
    const db = env.DATABASE_URL ? "postgres" : "pglite";
    return [
      { name: `GET /auth/me (${db}, 32 conc.) throughput`, value: meResult.rps, unit: "req/s" },
      { name: `GET /auth/me p50`, value: meResult.p50, unit: "ms" },
      { name: `GET /auth/me p99`, value: meResult.p99, unit: "ms" },
      {
        name: `POST /auth/login (${db}, 8 conc.) throughput`,
        value: loginResult.rps,
        unit: "req/s",
      },
      { name: `POST /auth/login p50`, value: loginResult.p50, unit: "ms" },
      { name: `POST /auth/login p99`, value: loginResult.p99, unit: "ms" },
    ];
  } finally {
    await service.stop();
  }
}

if (import.meta.main) printTable(await benchAuth());
