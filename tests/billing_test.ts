/**
 * SPEC 2.4, 2.5, 3.5, 4.4, 6: billing over HTTP with the real `stripe` SDK talking to a local
 * Stripe-compatible server, and webhooks signed with Stripe's own `t=…,v1=…` scheme.
 */
import Stripe from "stripe";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { invoiceObject, startFakeStripe } from "./helpers/fake_stripe.ts";
import { AppError } from "../src/errors.ts";
import { runAdmin } from "../src/admin.ts";

const stripe = startFakeStripe();
const SECRET = "whsec_test_secret_for_billing";
const suite = serverSuite("billing", {
  STRIPE_SECRET_KEY: stripe.key,
  STRIPE_API_URL: stripe.url,
  STRIPE_WEBHOOK_SECRET: SECRET,
  STRIPE_PRICE_MONTHLY: "price_monthly_pro",
  STRIPE_PRICE_YEARLY: "price_yearly_pro",
});

const crypto = Stripe.createSubtleCryptoProvider();
let eventSeq = 0;
const newEventId = () => `evt_test_${Date.now().toString(36)}_${eventSeq++}`;
const now = () => Math.floor(Date.now() / 1000);

function event(
  type: string,
  object: Record<string, unknown>,
  fields: Record<string, unknown> = {},
) {
  return {
    id: newEventId(),
    object: "event",
    api_version: "2025-01-27.acacia",
    created: now(),
    livemode: false,
    type,
    data: { object },
    ...fields,
  };
}

/** Signs and delivers an event the way Stripe does. */
async function deliver(
  api: Client,
  body: unknown,
  options: { secret?: string; timestamp?: number; header?: string } = {},
) {
  const payload = JSON.stringify(body);
  const signature = await Stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret: options.secret ?? SECRET,
    timestamp: options.timestamp,
    cryptoProvider: crypto,
  });
  return await api.post("/auth/webhook/stripe", {
    raw: payload,
    headers: {
      "content-type": "application/json",
      [options.header ?? "Stripe-Signature"]: signature,
    },
  });
}

function checkoutCompleted(userId: string, customer: string, subscription: string, extra = {}) {
  return event("checkout.session.completed", {
    id: `cs_${subscription}`,
    object: "checkout.session",
    mode: "subscription",
    client_reference_id: userId,
    customer,
    subscription,
    metadata: { userId, plan: "pro", interval: "monthly" },
    status: "complete",
  }, extra);
}

function subscriptionObject(id: string, customer: string, fields: Record<string, unknown> = {}) {
  return {
    id,
    object: "subscription",
    customer,
    status: "active",
    cancel_at_period_end: false,
    metadata: {},
    items: {
      object: "list",
      data: [{
        id: `si_${id}`,
        current_period_start: 1767225600,
        current_period_end: 1769904000,
        price: { id: "price_monthly_pro", recurring: { interval: "month" } },
      }],
    },
    ...fields,
  };
}

function invoiceEvent(type: string, customer: string, subscription: string, period?: number[]) {
  return event(type, {
    id: `in_${newEventId()}`,
    object: "invoice",
    customer,
    parent: { subscription_details: { subscription, metadata: {} } },
    lines: {
      object: "list",
      data: period ? [{ period: { start: period[0], end: period[1] } }] : [],
    },
  });
}

/** A registered user who completed checkout through the webhook. */
async function subscribedUser(api: Client) {
  const user = await registerUser(api, "sub");
  const customer = `cus_${user.user.id.slice(-12)}`;
  const subscription = `sub_${user.user.id.slice(-12)}`;
  expectStatus(await deliver(api, checkoutCompleted(user.user.id, customer, subscription)), 200);
  return { ...user, customer, subscription };
}

const subscriptionOf = async (api: Client, token: string) =>
  expectStatus(await api.get("/auth/subscription", { token }), 200);

suite.test("GET /auth/subscription is status none with nulls before any subscription", async (api) => {
  const user = await registerUser(api);
  assertEquals(await subscriptionOf(api, user.accessToken), {
    status: "none",
    plan: null,
    interval: null,
    currentPeriodStart: null,
    currentPeriodEnd: null,
    cancelAtPeriodEnd: false,
    paymentCustomerId: null,
    paymentSubscriptionId: null,
  });
  const me = expectStatus(await api.get("/auth/me", { token: user.accessToken }), 200);
  assertEquals(me.subscription, null);
  expectError(await api.get("/auth/subscription"), 401);
  expectError(await api.get("/auth/subscription/invoices"), 401);
  expectError(
    await api.post("/auth/subscription/checkout", { body: { interval: "monthly" } }),
    401,
  );
  expectError(await api.post("/auth/subscription/portal"), 401);
});

suite.test("billing endpoints refuse PATs (403) and ended sessions (401)", async (api) => {
  const user = await registerUser(api);
  const pat = expectStatus(
    await api.post("/api/personal-access-tokens", {
      token: user.accessToken,
      body: { name: "script" },
    }),
    201,
  );
  expectError(await api.get("/auth/subscription", { token: pat.token }), 403);
  expectError(await api.get("/auth/subscription/invoices", { token: pat.token }), 403);
  expectError(
    await api.post("/auth/subscription/checkout", {
      token: pat.token,
      body: { interval: "monthly" },
    }),
    403,
  );
  expectError(await api.post("/auth/subscription/portal", { token: pat.token }), 403);
  expectStatus(
    await api.post("/auth/logout", {
      token: user.accessToken,
      body: { refreshToken: user.refreshToken },
    }),
    200,
  );
  expectError(await api.get("/auth/subscription", { token: user.accessToken }), 401);
  expectError(
    await api.post("/auth/subscription/checkout", {
      token: user.accessToken,
      body: { interval: "monthly" },
    }),
    401,
  );
});

suite.test("checkout creates a subscription-mode session tagged with the user", async (api) => {
  const user = await registerUser(api);
  const before = stripe.calls.length;
  const body = expectStatus(
    await api.post("/auth/subscription/checkout", {
      token: user.accessToken,
      body: { interval: "yearly" },
    }),
    200,
  );
  assert.match(body.url, /^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_/);
  const calls = stripe.calls.slice(before);
  const customer = calls.find((c) => c.path === "/v1/customers");
  assertEquals(customer?.body.metadata, { userId: user.user.id });
  const session = calls.find((c) => c.path === "/v1/checkout/sessions")!.body;
  assertEquals(session.mode, "subscription");
  assertEquals(session.client_reference_id, user.user.id);
  assertEquals(session.metadata, { userId: user.user.id, plan: "pro", interval: "yearly" });
  assertEquals(session.subscription_data.metadata, session.metadata);
  assertEquals(session.line_items, [{ price: "price_yearly_pro", quantity: "1" }]);
  // The customer is created once and kept.
  const sub = await subscriptionOf(api, user.accessToken);
  assertEquals(sub.status, "none");
  assert.match(sub.paymentCustomerId, /^cus_/);
  assertEquals(session.customer, sub.paymentCustomerId);
  const again = stripe.calls.length;
  expectStatus(
    await api.post("/auth/subscription/checkout", {
      token: user.accessToken,
      body: { interval: "monthly" },
    }),
    200,
  );
  assertEquals(stripe.calls.slice(again).filter((c) => c.path === "/v1/customers").length, 0);
});

suite.test("checkout rejects a bad interval with 400 and an active subscriber with 409", async (api) => {
  const user = await registerUser(api);
  for (const body of [{ interval: "weekly" }, {}, { interval: 12 }]) {
    expectError(
      await api.post("/auth/subscription/checkout", { token: user.accessToken, body }),
      400,
      /interval/,
    );
  }
  const subscriber = await subscribedUser(api);
  expectError(
    await api.post("/auth/subscription/checkout", {
      token: subscriber.accessToken,
      body: { interval: "monthly" },
    }),
    409,
  );
});

suite.test("portal answers the hosted portal URL for the user's customer", async (api) => {
  const user = await subscribedUser(api);
  const before = stripe.calls.length;
  const body = expectStatus(
    await api.post("/auth/subscription/portal", { token: user.accessToken }),
    200,
  );
  assert.match(body.url, /^https:\/\/billing\.stripe\.test\/p\/session\//);
  const call = stripe.calls.slice(before).find((c) => c.path === "/v1/billing_portal/sessions");
  assertEquals(call?.body.customer, user.customer);
});

suite.test(
  "checkout and portal started from the console return to it; from elsewhere, to WEB_APP_URL",
  async (api, server) => {
    const user = await registerUser(api);
    const own = new URL(server.url).origin;
    const webApp = server.env.WEB_APP_URL ?? "http://localhost:3000";
    const lastBody = (path: string) => stripe.calls.findLast((c) => c.path === path)!.body;
    const checkout = async (origin?: string) => {
      expectStatus(
        await api.post("/auth/subscription/checkout", {
          token: user.accessToken,
          body: { interval: "monthly" },
          headers: origin ? { origin } : {},
        }),
        200,
      );
      return lastBody("/v1/checkout/sessions");
    };
    const fromConsole = await checkout(own);
    assertEquals([fromConsole.success_url, fromConsole.cancel_url], [
      `${server.url}/#/account`,
      `${server.url}/#/account`,
    ]);
    // A script (no Origin) or another site's page: the web app's pages, as before.
    for (const origin of [undefined, "https://elsewhere.example"]) {
      const session = await checkout(origin);
      assert.match(session.success_url, new RegExp(`^${webApp}/billing/success\\?session_id=`));
      assertEquals(session.cancel_url, `${webApp}/billing/cancel`);
    }
    const subscriber = await subscribedUser(api);
    const portal = async (origin?: string) => {
      expectStatus(
        await api.post("/auth/subscription/portal", {
          token: subscriber.accessToken,
          headers: origin ? { origin } : {},
        }),
        200,
      );
      return lastBody("/v1/billing_portal/sessions").return_url;
    };
    assertEquals(await portal(own), `${server.url}/#/account`);
    assertEquals(await portal(), `${webApp}/settings/billing`);
  },
);

suite.test("invoices list the provider's invoices in cents with hosted and PDF URLs", async (api) => {
  const fresh = await registerUser(api);
  assertEquals(
    expectStatus(await api.get("/auth/subscription/invoices", { token: fresh.accessToken }), 200),
    { invoices: [] },
  );
  const user = await subscribedUser(api);
  const paid = invoiceObject(user.customer);
  const open = invoiceObject(user.customer, { status: "open", amount_due: 9900, currency: "eur" });
  stripe.invoices.set(user.customer, [open, paid]);
  const body = expectStatus(
    await api.get("/auth/subscription/invoices", { token: user.accessToken }),
    200,
  );
  assertEquals(body.invoices, [
    {
      id: open.id,
      date: "2026-01-01T00:00:00.000Z",
      amount: 9900,
      currency: "eur",
      status: "open",
      invoiceUrl: open.hosted_invoice_url,
      pdfUrl: open.invoice_pdf,
    },
    {
      id: paid.id,
      date: "2026-01-01T00:00:00.000Z",
      amount: 990,
      currency: "usd",
      status: "paid",
      invoiceUrl: paid.hosted_invoice_url,
      pdfUrl: paid.invoice_pdf,
    },
  ]);
});

suite.test(
  "checkout.session.completed activates pro; 200 with an empty body",
  async (api, server) => {
    const user = await registerUser(api);
    const reply = await deliver(api, checkoutCompleted(user.user.id, "cus_act1", "sub_act1"));
    assertEquals(reply.status, 200);
    assertEquals(reply.body, null);
    const sub = await subscriptionOf(api, user.accessToken);
    assertEquals(
      [sub.status, sub.plan, sub.interval, sub.paymentCustomerId, sub.paymentSubscriptionId],
      ["active", "pro", "monthly", "cus_act1", "sub_act1"],
    );
    const me = expectStatus(await api.get("/auth/me", { token: user.accessToken }), 200);
    assertEquals(me.subscription, {
      status: "active",
      plan: "pro",
      interval: "monthly",
      currentPeriodEnd: null,
      cancelAtPeriodEnd: false,
    });
    assertEquals(await server.app.services.billing.planOf(user.user.id), "pro");
    await server.app.services.billing.requirePro(user.user.id);
  },
);

suite.test("webhook signature: bad, missing, stale and foreign-secret deliveries are 400", async (api) => {
  const user = await registerUser(api);
  const body = checkoutCompleted(user.user.id, "cus_sig1", "sub_sig1");
  expectError(await deliver(api, body, { secret: "whsec_someone_else" }), 400);
  expectError(await deliver(api, body, { timestamp: now() - 3600 }), 400);
  expectError(
    await api.post("/auth/webhook/stripe", {
      raw: JSON.stringify(body),
      headers: { "content-type": "application/json" },
    }),
    400,
  );
  // A valid signature over different bytes.
  const signature = await Stripe.webhooks.generateTestHeaderStringAsync({
    payload: JSON.stringify(body),
    secret: SECRET,
    cryptoProvider: crypto,
  });
  expectError(
    await api.post("/auth/webhook/stripe", {
      raw: JSON.stringify({ ...body, type: "customer.subscription.deleted" }),
      headers: { "content-type": "application/json", "stripe-signature": signature },
    }),
    400,
  );
  assertEquals((await subscriptionOf(api, user.accessToken)).status, "none");
  // CONTRACT.md: Payment-Signature is the same header.
  expectStatus(await deliver(api, body, { header: "Payment-Signature" }), 200);
  assertEquals((await subscriptionOf(api, user.accessToken)).status, "active");
});

suite.test("a replayed event id answers 200 and changes nothing", async (api, server) => {
  const user = await subscribedUser(api);
  const updated = event(
    "customer.subscription.updated",
    subscriptionObject(user.subscription, user.customer, { cancel_at_period_end: true }),
  );
  expectStatus(await deliver(api, updated), 200);
  assertEquals((await subscriptionOf(api, user.accessToken)).cancelAtPeriodEnd, true);
  // Undo the effect behind the webhook's back; a replay must not re-apply it.
  await server.app.services.db.updateTable("subscriptions")
    .set({ cancel_at_period_end: false, provider_updated_at: null })
    .where("user_id", "=", user.user.id).execute();
  expectStatus(await deliver(api, updated), 200);
  assertEquals((await subscriptionOf(api, user.accessToken)).cancelAtPeriodEnd, false);
});

suite.test("concurrent duplicate deliveries apply the event exactly once", async (api, server) => {
  const user = await subscribedUser(api);
  const failed = invoiceEvent("invoice.payment_failed", user.customer, user.subscription);
  const replies = await Promise.all(Array.from({ length: 8 }, () => deliver(api, failed)));
  assertEquals(replies.map((r) => r.status), Array(8).fill(200));
  const rows = await server.app.services.db.selectFrom("payment_events").selectAll()
    .where("id", "=", failed.id).execute();
  assertEquals(rows.length, 1);
  assertEquals((await subscriptionOf(api, user.accessToken)).status, "past_due");
});

suite.test("out-of-order customer.subscription.updated never moves state back", async (api) => {
  const user = await subscribedUser(api);
  const t = now() + 10;
  const newer = event(
    "customer.subscription.updated",
    subscriptionObject(user.subscription, user.customer, {
      cancel_at_period_end: true,
      items: {
        data: [{
          current_period_start: 1767225600,
          current_period_end: 1798761600,
          price: { id: "price_yearly_pro", recurring: { interval: "year" } },
        }],
      },
    }),
    { created: t },
  );
  const older = event(
    "customer.subscription.updated",
    subscriptionObject(user.subscription, user.customer),
    { created: t - 5 },
  );
  expectStatus(await deliver(api, newer), 200);
  expectStatus(await deliver(api, older), 200);
  const sub = await subscriptionOf(api, user.accessToken);
  assertEquals([sub.interval, sub.cancelAtPeriodEnd, sub.currentPeriodEnd], [
    "yearly",
    true,
    "2027-01-01T00:00:00.000Z",
  ]);
  // An older payment failure cannot undo the newer state either.
  const lateFailure = invoiceEvent("invoice.payment_failed", user.customer, user.subscription);
  lateFailure.created = t - 1;
  expectStatus(await deliver(api, lateFailure), 200);
  assertEquals((await subscriptionOf(api, user.accessToken)).status, "active");
});

suite.test("the five events move the subscription as SPEC 3.5 says", async (api, server) => {
  const user = await subscribedUser(api);
  const billing = server.app.services.billing;
  const t = now() + 20;
  const paid = invoiceEvent("invoice.paid", user.customer, user.subscription, [
    1767225600,
    1769904000,
  ]);
  paid.created = t;
  expectStatus(await deliver(api, paid), 200);
  let sub = await subscriptionOf(api, user.accessToken);
  assertEquals(
    [sub.status, sub.currentPeriodStart, sub.currentPeriodEnd],
    ["active", "2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z"],
  );
  const failed = invoiceEvent("invoice.payment_failed", user.customer, user.subscription);
  failed.created = t + 1;
  expectStatus(await deliver(api, failed), 200);
  assertEquals((await subscriptionOf(api, user.accessToken)).status, "past_due");
  assertEquals(await billing.planOf(user.user.id), "pro");
  await assertAppError(billing.requirePro(user.user.id), "payment_required", 402);
  // invoice.paid leaves the status as it is (SPEC 3.5) and moves the period.
  const paidAgain = invoiceEvent("invoice.paid", user.customer, user.subscription, [
    1769904000,
    1772323200,
  ]);
  paidAgain.created = t + 2;
  expectStatus(await deliver(api, paidAgain), 200);
  sub = await subscriptionOf(api, user.accessToken);
  assertEquals([sub.status, sub.currentPeriodEnd], ["past_due", "2026-03-01T00:00:00.000Z"]);
  const deleted = event(
    "customer.subscription.deleted",
    subscriptionObject(user.subscription, user.customer, { status: "canceled" }),
    { created: t + 3 },
  );
  expectStatus(await deliver(api, deleted), 200);
  sub = await subscriptionOf(api, user.accessToken);
  assertEquals([sub.status, sub.plan], ["canceled", "pro"]);
  assertEquals(await billing.planOf(user.user.id), "free");
  await assertAppError(billing.requirePro(user.user.id), "plan_upgrade_required", 403);
});

suite.test(
  "a recovered payment (subscription.updated active) lifts past_due",
  async (api, server) => {
    const user = await subscribedUser(api);
    const t = now() + 30;
    const failed = invoiceEvent("invoice.payment_failed", user.customer, user.subscription);
    failed.created = t;
    expectStatus(await deliver(api, failed), 200);
    assertEquals((await subscriptionOf(api, user.accessToken)).status, "past_due");
    const recovered = event(
      "customer.subscription.updated",
      subscriptionObject(user.subscription, user.customer, { status: "active" }),
      { created: t + 1 },
    );
    expectStatus(await deliver(api, recovered), 200);
    assertEquals((await subscriptionOf(api, user.accessToken)).status, "active");
    await server.app.services.billing.requirePro(user.user.id);
  },
);

suite.test("events find the user by stored customer id when they carry no user id", async (api) => {
  const user = await subscribedUser(api);
  const failed = event("invoice.payment_failed", {
    id: "in_nometa",
    object: "invoice",
    customer: user.customer,
  });
  expectStatus(await deliver(api, failed), 200);
  assertEquals((await subscriptionOf(api, user.accessToken)).status, "past_due");
  // An unknown customer matches nobody: acknowledged, nothing changes.
  expectStatus(
    await deliver(api, event("invoice.payment_failed", { id: "in_x", customer: "cus_unknown" })),
    200,
  );
});

suite.test("unknown event types answer 200 and change nothing", async (api, server) => {
  const user = await subscribedUser(api);
  const before = await subscriptionOf(api, user.accessToken);
  const unknown = event("customer.created", { id: user.customer, object: "customer" });
  const reply = await deliver(api, unknown);
  assertEquals(reply.status, 200);
  assertEquals(reply.body, null);
  assertEquals(await subscriptionOf(api, user.accessToken), before);
  assert.ok(
    await server.app.services.db.selectFrom("payment_events").select("id")
      .where("id", "=", unknown.id).executeTakeFirst(),
  );
});

suite.test(
  "a failing handler answers non-2xx and writes nothing, so a retry runs again",
  async (api, server) => {
    const first = await subscribedUser(api);
    const second = await registerUser(api);
    // The second user's checkout names the first user's customer: the unique customer id makes
    // the update fail inside the transaction, after the event id was recorded.
    const clash = checkoutCompleted(second.user.id, first.customer, "sub_clash");
    const reply = await deliver(api, clash);
    assertEquals(reply.status, 500);
    assertEquals((await subscriptionOf(api, second.accessToken)).status, "none");
    const recorded = await server.app.services.db.selectFrom("payment_events").select("id")
      .where("id", "=", clash.id).executeTakeFirst();
    assertEquals(recorded, undefined);
    assertEquals((await deliver(api, clash)).status, 500);
  },
);

suite.test("account deletion cancels the live subscription at the provider", async (api) => {
  const user = await subscribedUser(api);
  const before = stripe.calls.length;
  expectStatus(
    await api.delete("/auth/account", {
      token: user.accessToken,
      body: { confirm: true, password: user.password },
    }),
    204,
  );
  const cancel = stripe.calls.slice(before).find((c) => c.method === "DELETE");
  assertEquals(cancel?.path, `/v1/subscriptions/${user.subscription}`);
});

suite.test("a provider failure while cancelling makes deletion 500 and deletes nothing", async (api) => {
  const user = await subscribedUser(api);
  stripe.failCancel = 500;
  try {
    expectError(
      await api.delete("/auth/account", {
        token: user.accessToken,
        body: { confirm: true, password: user.password },
      }),
      500,
    );
  } finally {
    stripe.failCancel = null;
  }
  expectStatus(await api.get("/auth/me", { token: user.accessToken }), 200);
  assertEquals((await subscriptionOf(api, user.accessToken)).status, "active");
  // A canceled subscription is not cancelled again: deletion needs no provider call.
  const free = await registerUser(api);
  const before = stripe.calls.length;
  expectStatus(
    await api.delete("/auth/account", {
      token: free.accessToken,
      body: { confirm: true, password: free.password },
    }),
    204,
  );
  assertEquals(stripe.calls.length, before);
});

suite.test("planOf/requirePro: free by default, pro with admin set-plan", async (api, server) => {
  const user = await registerUser(api);
  const billing = server.app.services.billing;
  assertEquals(await billing.planOf(user.user.id), "free");
  await assertAppError(billing.requirePro(user.user.id), "plan_upgrade_required", 403);
  const db = server.app.services.db;
  assert.match(await runAdmin(db, ["set-plan", user.user.email, "pro"]), /pro plan/);
  assertEquals(await billing.planOf(user.user.id), "pro");
  await billing.requirePro(user.user.id);
  const sub = await subscriptionOf(api, user.accessToken);
  assertEquals([sub.status, sub.plan], ["active", "pro"]);
  await runAdmin(db, ["set-plan", user.user.username.toUpperCase(), "free"]);
  assertEquals(await billing.planOf(user.user.id), "free");
  await assert.rejects(runAdmin(db, ["set-plan", "nobody@example.com", "pro"]), /No user/);
  await assert.rejects(runAdmin(db, ["set-plan", user.user.email, "gold"]), /Usage/);
});

suite.test("stops the fake Stripe server", async () => {
  await stripe.close();
});

suite.end();

async function assertAppError(promise: Promise<unknown>, code: string, status: number) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError);
    assertEquals([error.code, error.status], [code, status]);
    return true;
  });
}

// Without Stripe configured the service still runs: checkout and portal are 503, the rest works.
const bare = serverSuite("billing unconfigured");

bare.test("checkout and portal answer 503; subscription and invoices still work", async (api) => {
  const user = await registerUser(api);
  for (
    const reply of [
      await api.post("/auth/subscription/checkout", {
        token: user.accessToken,
        body: { interval: "monthly" },
      }),
      await api.post("/auth/subscription/portal", { token: user.accessToken }),
    ]
  ) {
    assertEquals(expectStatus(reply, 503), { error: "billing is not configured" });
  }
  assertEquals((await subscriptionOf(api, user.accessToken)).status, "none");
  assertEquals(
    expectStatus(await api.get("/auth/subscription/invoices", { token: user.accessToken }), 200),
    { invoices: [] },
  );
});

bare.test("the webhook answers 400 to everything without a signing secret", async (api) => {
  const user = await registerUser(api);
  expectError(await deliver(api, checkoutCompleted(user.user.id, "cus_x", "sub_x")), 400);
  assertEquals((await subscriptionOf(api, user.accessToken)).status, "none");
});

bare.end();
