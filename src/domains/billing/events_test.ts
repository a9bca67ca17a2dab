import { assertEquals } from "../../../tests/helpers/assert.ts";
import { interpretEvent } from "./events.ts";

const prices = { monthly: "price_m", yearly: "price_y" };
const at = 1767225600;
const ev = (type: string, object: Record<string, unknown>) => ({
  id: "evt_1",
  type,
  created: at,
  data: { object },
});

Deno.test("checkout.session.completed: user from client_reference_id and metadata, active pro", () => {
  const effect = interpretEvent(
    ev("checkout.session.completed", {
      mode: "subscription",
      client_reference_id: "u1",
      customer: "cus_1",
      subscription: { id: "sub_1" },
      metadata: { userId: "u2", plan: "pro", interval: "yearly" },
    }),
    prices,
  );
  assertEquals(effect, {
    lookup: { clientReferenceId: "u1", metadataUserId: "u2", customerId: "cus_1" },
    at: new Date(at * 1000),
    subscriptionId: "sub_1",
    startsSubscription: true,
    status: "active",
    plan: "pro",
    interval: "yearly",
    cancelAtPeriodEnd: false,
  });
});

Deno.test("a payment-mode checkout and unknown types change nothing", () => {
  assertEquals(interpretEvent(ev("checkout.session.completed", { mode: "payment" }), prices), null);
  assertEquals(interpretEvent(ev("charge.refunded", {}), prices), null);
});

Deno.test("invoice events: paid moves the period only, payment_failed is past_due", () => {
  const invoice = {
    customer: "cus_1",
    subscription: "sub_1",
    lines: { data: [{ period: { start: at, end: at + 86400 } }] },
  };
  const paid = interpretEvent(ev("invoice.paid", invoice), prices)!;
  assertEquals([paid.status, paid.periodStart, paid.periodEnd, paid.subscriptionId], [
    undefined,
    new Date(at * 1000),
    new Date((at + 86400) * 1000),
    "sub_1",
  ]);
  const failed = interpretEvent(ev("invoice.payment_failed", invoice), prices)!;
  assertEquals([failed.status, failed.periodEnd], ["past_due", undefined]);
  // Newer API shape: the subscription sits under parent.subscription_details.
  const nested = interpretEvent(
    ev("invoice.paid", {
      customer: "cus_1",
      parent: { subscription_details: { subscription: "sub_9", metadata: { userId: "u9" } } },
    }),
    prices,
  )!;
  assertEquals([nested.subscriptionId, nested.lookup.metadataUserId], ["sub_9", "u9"]);
});

Deno.test("subscription.updated: interval from the price, cancellation flag, synced status", () => {
  const updated = interpretEvent(
    ev("customer.subscription.updated", {
      id: "sub_1",
      customer: "cus_1",
      status: "past_due",
      cancel_at_period_end: true,
      items: { data: [{ price: { id: "price_y" }, current_period_end: at }] },
    }),
    prices,
  )!;
  assertEquals(
    [updated.interval, updated.cancelAtPeriodEnd, updated.status, updated.plan, updated.periodEnd],
    ["yearly", true, "past_due", "pro", new Date(at * 1000)],
  );
  const incomplete = interpretEvent(
    ev("customer.subscription.updated", {
      id: "sub_1",
      status: "incomplete",
      items: { data: [{ price: { recurring: { interval: "month" } } }] },
    }),
    prices,
  )!;
  assertEquals([incomplete.status, incomplete.interval], [undefined, "monthly"]);
});

Deno.test("subscription.deleted is canceled", () => {
  const deleted = interpretEvent(ev("customer.subscription.deleted", { id: "sub_1" }), prices)!;
  assertEquals([deleted.status, deleted.subscriptionId], ["canceled", "sub_1"]);
});
