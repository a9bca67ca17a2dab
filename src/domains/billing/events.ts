/**
 * Pure reading of payment-provider events (SPEC 3.5, 6; CONTRACT.md "Billing"): which user an
 * event is about and what it changes, taken from the payload alone (no call back to Stripe).
 */

/** Who an event is about, in the order the contract tries them. */
export interface EventLookup {
  clientReferenceId?: string;
  metadataUserId?: string;
  customerId?: string;
}

/** What an event changes on the user's subscription row. */
export interface EventEffect {
  lookup: EventLookup;
  /** The provider's time for this state (event `created`): older states never overwrite newer. */
  at: Date;
  /** The subscription the event is about, when it names one. */
  subscriptionId?: string;
  /** True when the event starts a new subscription (checkout), so a different stored id is fine. */
  startsSubscription: boolean;
  status?: "active" | "trialing" | "past_due" | "canceled";
  plan?: string;
  interval?: "monthly" | "yearly";
  periodStart?: Date;
  periodEnd?: Date;
  cancelAtPeriodEnd?: boolean;
}

/** Price ids of the pro plan, to tell the interval when metadata does not. */
export interface Prices {
  monthly?: string;
  yearly?: string;
}

/** The event types of SPEC 6; anything else is acknowledged and ignored. */
export const HANDLED_EVENTS = [
  "checkout.session.completed",
  "invoice.paid",
  "invoice.payment_failed",
  "customer.subscription.updated",
  "customer.subscription.deleted",
] as const;

type Json = Record<string, unknown>;

const obj = (v: unknown): Json => (v && typeof v === "object" ? v as Json : {});
const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);
/** An expandable field: an id string or the expanded object. */
const idOf = (v: unknown): string | undefined => str(v) ?? str(obj(v).id);
const time = (v: unknown): Date | undefined =>
  typeof v === "number" && Number.isFinite(v) ? new Date(v * 1000) : undefined;

function intervalOf(value: unknown): "monthly" | "yearly" | undefined {
  if (value === "monthly" || value === "month") return "monthly";
  if (value === "yearly" || value === "year") return "yearly";
  return undefined;
}

/** Interval of a subscription object: metadata, then the price's recurrence, then our price ids. */
function subscriptionInterval(sub: Json, prices: Prices) {
  const price = obj(firstItem(sub).price ?? sub.plan);
  const fromPrice = intervalOf(obj(price.recurring).interval ?? price.interval);
  const priceId = str(price.id);
  return intervalOf(obj(sub.metadata).interval) ?? fromPrice ??
    (priceId && priceId === prices.monthly
      ? "monthly"
      : priceId && priceId === prices.yearly
      ? "yearly"
      : undefined);
}

/**
 * The provider's subscription status in our terms. Synced so that a recovered payment (past_due
 * back to active) is seen; `incomplete*` states are transient and leave the status alone.
 */
function syncedStatus(value: unknown): EventEffect["status"] {
  if (value === "active" || value === "trialing") return value;
  if (value === "past_due" || value === "unpaid") return "past_due";
  if (value === "canceled") return "canceled";
  return undefined;
}

function firstItem(sub: Json): Json {
  const data = obj(sub.items).data;
  return Array.isArray(data) ? obj(data[0]) : {};
}

/** The subscription an invoice belongs to (old and new API shapes). */
function invoiceSubscription(invoice: Json) {
  const details = obj(obj(invoice.parent).subscription_details);
  return {
    id: idOf(invoice.subscription) ?? idOf(details.subscription),
    metadata: obj(obj(invoice.subscription_details).metadata ?? details.metadata),
  };
}

/** The billing period of an invoice: its subscription line, else the invoice's own period. */
function invoicePeriod(invoice: Json) {
  const lines = obj(invoice.lines).data;
  const line = Array.isArray(lines) ? obj(lines[0]) : {};
  const period = obj(line.period);
  return {
    start: time(period.start) ?? time(invoice.period_start),
    end: time(period.end) ?? time(invoice.period_end),
  };
}

/** The effect of an event, or null for a type SPEC 6 does not handle. */
export function interpretEvent(event: Json, prices: Prices): EventEffect | null {
  const type = str(event.type);
  const object = obj(obj(event.data).object);
  const at = time(event.created) ?? new Date();
  switch (type) {
    case "checkout.session.completed": {
      const metadata = obj(object.metadata);
      if (object.mode !== undefined && object.mode !== "subscription") return null;
      return {
        lookup: {
          clientReferenceId: str(object.client_reference_id),
          metadataUserId: str(metadata.userId),
          customerId: idOf(object.customer),
        },
        at,
        subscriptionId: idOf(object.subscription),
        startsSubscription: true,
        status: "active",
        plan: str(metadata.plan) ?? "pro",
        interval: intervalOf(metadata.interval),
        cancelAtPeriodEnd: false,
      };
    }
    case "invoice.paid":
    case "invoice.payment_failed": {
      const sub = invoiceSubscription(object);
      const period = invoicePeriod(object);
      return {
        lookup: { metadataUserId: str(sub.metadata.userId), customerId: idOf(object.customer) },
        at,
        subscriptionId: sub.id,
        startsSubscription: false,
        // SPEC 3.5: a paid invoice leaves the status as it is and moves the billing period.
        ...(type === "invoice.paid"
          ? { periodStart: period.start, periodEnd: period.end }
          : { status: "past_due" as const }),
      };
    }
    case "customer.subscription.updated":
    case "customer.subscription.deleted": {
      const metadata = obj(object.metadata);
      const item = firstItem(object);
      const effect: EventEffect = {
        lookup: { metadataUserId: str(metadata.userId), customerId: idOf(object.customer) },
        at,
        subscriptionId: str(object.id),
        startsSubscription: false,
      };
      if (type === "customer.subscription.deleted") {
        return { ...effect, status: "canceled", cancelAtPeriodEnd: false };
      }
      return {
        ...effect,
        status: syncedStatus(object.status),
        plan: str(metadata.plan) ?? "pro",
        interval: subscriptionInterval(object, prices),
        cancelAtPeriodEnd: object.cancel_at_period_end === true ||
          typeof object.cancel_at === "number",
        periodStart: time(item.current_period_start) ?? time(object.current_period_start),
        periodEnd: time(item.current_period_end) ?? time(object.current_period_end),
      };
    }
    default:
      return null;
  }
}
