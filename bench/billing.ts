/** POST /auth/webhook/stripe under concurrent load: signed deliveries, each applied once (issue 5). */
import Stripe from "stripe";
import { type BenchRow, load, startServiceProcess } from "./lib.ts";

const SECRET = "whsec_bench_secret";

export async function benchBilling(env: Record<string, string> = {}): Promise<BenchRow[]> {
  const service = await startServiceProcess({ ...env, STRIPE_WEBHOOK_SECRET: SECRET });
  try {
    const name = `bill${Date.now().toString(36)}`;
    // Events spread over 32 customers, as a provider's stream is.
    const users: string[] = [];
    for (let u = 0; u < 32; u++) {
      const reg = await fetch(`${service.url}/auth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          email: `${name}${u}@example.com`,
          username: `${name}${u}`,
          password: "bench pw 1",
        }),
      });
      users.push((await reg.json()).user.id);
    }
    const crypto = Stripe.createSubtleCryptoProvider();
    let n = 0;
    const deliver = async () => {
      const i = n++;
      const userId = users[i % users.length];
      const payload = JSON.stringify({
        id: `evt_bench_${name}_${i}`,
        object: "event",
        type: "checkout.session.completed",
        created: Math.floor(Date.now() / 1000) + i,
        data: {
          object: {
            object: "checkout.session",
            mode: "subscription",
            client_reference_id: userId,
            customer: `cus_${userId}`,
            subscription: `sub_${userId}`,
            metadata: { userId, plan: "pro", interval: "monthly" },
          },
        },
      });
      const signature = await Stripe.webhooks.generateTestHeaderStringAsync({
        payload,
        secret: SECRET,
        cryptoProvider: crypto,
      });
      const res = await fetch(`${service.url}/auth/webhook/stripe`, {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": signature },
        body: payload,
      });
      await res.body?.cancel();
      if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
    };
    await load(deliver, { total: 100, concurrency: 4 }); // warm-up
    const result = await load(deliver, { total: 1000, concurrency: 16 });
    const db = env.DATABASE_URL ? "postgres" : "pglite";
    return [
      { name: `webhook event (${db}, 16 conc.) throughput`, value: result.rps, unit: "req/s" },
      { name: `webhook event p50`, value: result.p50, unit: "ms" },
      { name: `webhook event p99`, value: result.p99, unit: "ms" },
    ];
  } finally {
    await service.stop();
  }
}
