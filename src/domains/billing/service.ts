/**
 * Billing (SPEC 2.4, 2.5, 3.5, 4.4, 6): subscription state, hosted checkout and portal, invoices,
 * the webhook that keeps state in sync, and the one entitlement check the rest of the code asks.
 */
import type { Selectable } from "kysely";
import type { Config } from "../../config.ts";
import type { Db } from "../../schema.ts";
import type { SubscriptionSummary } from "../accounts/views.ts";
import { AppError, conflict, notFound } from "../../errors.ts";
import { isUuid } from "../../infra/lib/ids.ts";
import type { StripeClient } from "./stripe_client.ts";
import { type EventEffect, type EventLookup, interpretEvent } from "./events.ts";
import * as accounts from "../accounts/repository.ts";
import * as repo from "./repository.ts";
import type { SubscriptionsTable } from "./tables.ts";
import { toInvoice, toSubscription } from "./views.ts";

export type Plan = "free" | "pro";
export type Interval = "monthly" | "yearly";

/** Statuses in which the provider still bills the user (SPEC 2.4). */
const LIVE = new Set(["active", "trialing", "past_due"]);

/** How a webhook event ended, for logs and tests. */
export type EventOutcome = "applied" | "duplicate" | "ignored" | "unmatched" | "stale";

export class BillingService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    /** The provider's client, loaded on first use (issue 26); null without STRIPE_SECRET_KEY. */
    private readonly stripe: (() => Promise<StripeClient>) | null,
    /** The service's own URL (PUBLIC_BASE_URL, or where it listens): the console's origin. */
    private readonly publicBaseUrl: () => string = () => config.publicBaseUrl,
  ) {}

  /**
   * Whether a checkout or portal request came from the owner's console (its `Origin` is the
   * service's own): Stripe then sends the owner back to the console's account page, as a Google
   * or Apple sign-in started there comes back there (CONTRACT.md "The owner's console").
   */
  fromConsole(origin: string | null): boolean {
    return origin !== null && origin === new URL(this.publicBaseUrl()).origin;
  }

  /** The `subscription` object of `GET /auth/me` (SPEC 2.4), or null if never subscribed. */
  async summary(userId: string): Promise<SubscriptionSummary | null> {
    const row = await repo.findSubscription(this.db, userId);
    if (!row || row.status === "none") return null;
    return {
      status: row.status,
      plan: row.plan,
      interval: row.interval,
      currentPeriodEnd: row.current_period_end?.toISOString() ?? null,
      cancelAtPeriodEnd: row.cancel_at_period_end,
    };
  }

  /** `GET /auth/subscription`. */
  async getSubscription(userId: string) {
    return toSubscription(await repo.findSubscription(this.db, userId));
  }

  /**
   * The plan a user is on. `pro` while the provider bills them (active, trialing, and past_due,
   * which `requirePro` turns into 402); everything else is `free`.
   */
  async planOf(userId: string): Promise<Plan> {
    return planOfRow(await repo.findSubscription(this.db, userId));
  }

  /**
   * The entitlement gate (SPEC 7, targetless `mode=auto`): 403 `plan_upgrade_required` for a
   * free user, 402 `payment_required` when the pro subscription's billing failed.
   */
  async requirePro(userId: string): Promise<void> {
    const row = await repo.findSubscription(this.db, userId);
    if (planOfRow(row) === "free") {
      throw new AppError("plan_upgrade_required", "This feature needs the pro plan");
    }
    if (row?.status === "past_due") {
      throw new AppError("payment_required", "The last payment of the subscription failed");
    }
  }

  private requireStripe(): Promise<StripeClient> {
    if (!this.stripe) throw new AppError("unavailable", "billing is not configured");
    return this.stripe();
  }

  /** The user's payment customer id, creating the customer at the provider on first use. */
  private async customerOf(stripe: StripeClient, userId: string): Promise<string> {
    const row = await repo.findSubscription(this.db, userId);
    if (row?.payment_customer_id) return row.payment_customer_id;
    const user = await accounts.findUserById(this.db, userId);
    if (!user) throw notFound("User no longer exists");
    const customer = await stripe.customers.create(
      { email: user.email, name: user.username, metadata: { userId } },
      { idempotencyKey: `customer-${userId}` },
    );
    return await repo.keepCustomerId(this.db, userId, customer.id);
  }

  /**
   * `POST /auth/subscription/checkout`: a hosted Checkout Session in subscription mode, tagged
   * with the user id so the webhook finds the user without calling back (CONTRACT.md).
   */
  async createCheckout(
    userId: string,
    interval: Interval,
    origin: string | null = null,
  ): Promise<{ url: string }> {
    const stripe = await this.requireStripe();
    const price = interval === "monthly"
      ? this.config.stripe.priceMonthly
      : this.config.stripe.priceYearly;
    if (!price) throw new AppError("unavailable", "billing is not configured");
    const row = await repo.findSubscription(this.db, userId);
    if (row && LIVE.has(row.status) && row.plan === "pro") {
      throw conflict("User already has an active subscription");
    }
    const customer = await this.customerOf(stripe, userId);
    const metadata = { userId, plan: "pro", interval };
    const session = await stripe.checkout.sessions.create({
      mode: "subscription",
      customer,
      client_reference_id: userId,
      line_items: [{ price, quantity: 1 }],
      metadata,
      subscription_data: { metadata },
      ...(this.fromConsole(origin)
        ? { success_url: this.consoleAccount, cancel_url: this.consoleAccount }
        : {
          success_url: `${this.config.webAppUrl}/billing/success?session_id={CHECKOUT_SESSION_ID}`,
          cancel_url: `${this.config.webAppUrl}/billing/cancel`,
        }),
    });
    if (!session.url) throw new AppError("internal", "Checkout session has no URL");
    return { url: session.url };
  }

  /** The console's account page: where Stripe sends back an owner who started from it. */
  private get consoleAccount() {
    return `${this.publicBaseUrl()}/#/account`;
  }

  /** `POST /auth/subscription/portal`: the provider's hosted billing portal for the user. */
  async createPortal(userId: string, origin: string | null = null): Promise<{ url: string }> {
    const stripe = await this.requireStripe();
    const customer = await this.customerOf(stripe, userId);
    const session = await stripe.billingPortal.sessions.create({
      customer,
      return_url: this.fromConsole(origin)
        ? this.consoleAccount
        : `${this.config.webAppUrl}/settings/billing`,
    });
    return { url: session.url };
  }

  /** `GET /auth/subscription/invoices`: the provider's invoices of the user, newest first. */
  async listInvoices(userId: string) {
    const row = await repo.findSubscription(this.db, userId);
    // Without a customer (or without billing configured) there is nothing to list.
    if (!this.stripe || !row?.payment_customer_id) return { invoices: [] };
    const list = await (await this.stripe()).invoices.list({
      customer: row.payment_customer_id,
      limit: 100,
    });
    return { invoices: list.data.map(toInvoice) };
  }

  /**
   * Account deletion step (SPEC 4.1): cancels a subscription the provider still bills. A
   * provider failure propagates, so the deletion answers 500 and deletes nothing.
   */
  async cancelForDeletion(userId: string): Promise<void> {
    const row = await repo.findSubscription(this.db, userId);
    if (!row?.payment_subscription_id || !LIVE.has(row.status)) return;
    if (!this.stripe) throw new Error("Cannot cancel the subscription: billing is not configured");
    try {
      await (await this.stripe()).subscriptions.cancel(row.payment_subscription_id);
    } catch (error) {
      // Already gone at the provider: nothing left to cancel.
      if ((error as { code?: string }).code === "resource_missing") return;
      throw error;
    }
  }

  /** `deno task admin set-plan`: sets a plan locally, without the provider. */
  async setPlan(userId: string, plan: Plan) {
    await repo.setPlan(this.db, userId, plan);
  }

  /**
   * Applies one verified webhook event (SPEC 3.5, 6) in one transaction together with the
   * record of its id: a replay or a concurrent duplicate changes nothing, a failure leaves no
   * partial write, and an event older than the row's provider time never moves state back.
   */
  async applyEvent(event: Record<string, unknown>): Promise<EventOutcome> {
    const id = String(event.id ?? "");
    const type = String(event.type ?? "");
    if (!id) throw new AppError("invalid_request", "Event has no id");
    const prices = {
      monthly: this.config.stripe.priceMonthly,
      yearly: this.config.stripe.priceYearly,
    };
    return await this.db.transaction().execute(async (trx) => {
      if (!(await repo.recordEvent(trx, id, type))) return "duplicate";
      const effect = interpretEvent(event, prices);
      if (!effect) return "ignored";
      const userId = await this.findUser(trx, effect.lookup);
      if (!userId) return "unmatched";
      const row = await repo.lockSubscription(trx, userId);
      if (!appliesTo(row, effect)) return "stale";
      await repo.updateSubscription(trx, userId, changesOf(row, effect));
      return "applied";
    });
  }

  /** CONTRACT.md: `client_reference_id`, then `metadata.userId`, then the stored customer id. */
  private async findUser(db: Db, lookup: EventLookup): Promise<string | undefined> {
    for (const candidate of [lookup.clientReferenceId, lookup.metadataUserId]) {
      if (candidate && isUuid(candidate) && (await accounts.findUserById(db, candidate))) {
        return candidate;
      }
    }
    return lookup.customerId ? await repo.findUserIdByCustomer(db, lookup.customerId) : undefined;
  }
}

function planOfRow(row: Selectable<SubscriptionsTable> | undefined): Plan {
  return row?.plan === "pro" && LIVE.has(row.status) ? "pro" : "free";
}

/**
 * Whether an event may change the row: not older than the newest state applied (out-of-order
 * delivery), and about the subscription the row tracks (events of an old, replaced subscription
 * are ignored). Checkout starts a subscription, so it may replace the stored one.
 */
export function appliesTo(row: Selectable<SubscriptionsTable>, effect: EventEffect): boolean {
  if (row.provider_updated_at && effect.at < row.provider_updated_at) return false;
  if (
    !effect.startsSubscription && effect.subscriptionId && row.payment_subscription_id &&
    effect.subscriptionId !== row.payment_subscription_id
  ) return false;
  return true;
}

function changesOf(row: Selectable<SubscriptionsTable>, effect: EventEffect) {
  return {
    provider_updated_at: effect.at,
    ...(effect.status ? { status: effect.status } : {}),
    ...(effect.plan ? { plan: effect.plan } : {}),
    ...(effect.interval ? { interval: effect.interval } : {}),
    ...(effect.periodStart ? { current_period_start: effect.periodStart } : {}),
    ...(effect.periodEnd ? { current_period_end: effect.periodEnd } : {}),
    ...(effect.cancelAtPeriodEnd !== undefined
      ? { cancel_at_period_end: effect.cancelAtPeriodEnd }
      : {}),
    ...(effect.lookup.customerId && !row.payment_customer_id
      ? { payment_customer_id: effect.lookup.customerId }
      : {}),
    ...(effect.subscriptionId ? { payment_subscription_id: effect.subscriptionId } : {}),
  };
}
