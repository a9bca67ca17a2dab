import { assertEquals } from "../../../tests/helpers/assert.ts";
import { appliesTo } from "./service.ts";
import type { EventEffect } from "./events.ts";

const row = {
  user_id: "u",
  status: "active",
  plan: "pro",
  interval: "monthly",
  current_period_start: null,
  current_period_end: null,
  cancel_at_period_end: false,
  payment_customer_id: "cus_1",
  payment_subscription_id: "sub_1",
  provider_updated_at: new Date(2_000_000_000_000),
  created_at: new Date(0),
  updated_at: new Date(0),
};
const effect = (fields: Partial<EventEffect>): EventEffect => ({
  lookup: {},
  at: new Date(2_000_000_000_000),
  startsSubscription: false,
  ...fields,
});

Deno.test("an event older than the applied state changes nothing; equal or newer applies", () => {
  assertEquals(appliesTo(row, effect({ at: new Date(1_999_999_999_000) })), false);
  assertEquals(appliesTo(row, effect({})), true);
  assertEquals(appliesTo(row, effect({ at: new Date(2_000_000_001_000) })), true);
  assertEquals(appliesTo({ ...row, provider_updated_at: null }, effect({ at: new Date(0) })), true);
});

Deno.test("events of another subscription are ignored unless they start one (checkout)", () => {
  assertEquals(appliesTo(row, effect({ subscriptionId: "sub_old" })), false);
  assertEquals(appliesTo(row, effect({ subscriptionId: "sub_1" })), true);
  assertEquals(appliesTo(row, effect({ subscriptionId: "sub_2", startsSubscription: true })), true);
  assertEquals(
    appliesTo({ ...row, payment_subscription_id: null }, effect({ subscriptionId: "x" })),
    true,
  );
});
