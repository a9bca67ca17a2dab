// deno-lint-ignore-file no-explicit-any -- request bodies are untyped form data
/**
 * A local server speaking the part of Stripe's REST API the service calls through the real SDK:
 * customers, checkout sessions, billing portal sessions, invoices and subscription cancellation.
 * Bodies are form-encoded with bracket keys (`metadata[userId]=…`), answers are Stripe objects.
 */

export interface FakeStripe {
  url: string;
  key: string;
  /** Every request received: method, path and the decoded form body or query. */
  calls: Array<{ method: string; path: string; body: any }>;
  /** Invoices returned for a customer id. */
  invoices: Map<string, any[]>;
  /** When set, `DELETE /v1/subscriptions/:id` answers this status with a Stripe error. */
  failCancel: number | null;
  close(): Promise<void>;
}

/** Decodes Stripe's form encoding (`a[b][0][c]=v`) into nested objects and arrays. */
export function decodeForm(text: string): any {
  const root: any = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.replace(/\]/g, "").split("[");
    let node = root;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) {
        node[part] = value;
        return;
      }
      node[part] ??= /^\d+$/.test(parts[i + 1]) ? [] : {};
      node = node[part];
    });
  }
  return root;
}

let seq = 0;
const id = (prefix: string) => `${prefix}_test${Date.now().toString(36)}${(seq++).toString(36)}`;

function stripeError(status: number, message: string, code?: string) {
  return Response.json(
    { error: { type: "invalid_request_error", message, ...(code ? { code } : {}) } },
    { status },
  );
}

/** Starts the fake on an ephemeral port. */
export function startFakeStripe(key = "sk_test_fake_key"): FakeStripe {
  const calls: FakeStripe["calls"] = [];
  const invoices = new Map<string, any[]>();
  const state: FakeStripe = {
    url: "",
    key,
    calls,
    invoices,
    failCancel: null,
    close: () => server.shutdown(),
  };
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const body = req.method === "GET" || req.method === "DELETE"
      ? decodeForm(url.search.slice(1))
      : decodeForm(await req.text());
    calls.push({ method: req.method, path: url.pathname, body });
    if (req.headers.get("authorization") !== `Bearer ${key}`) {
      return stripeError(401, "Invalid API Key provided");
    }
    const now = Math.floor(Date.now() / 1000);
    const route = `${req.method} ${url.pathname}`;
    if (route === "POST /v1/customers") {
      return Response.json({
        id: id("cus"),
        object: "customer",
        created: now,
        email: body.email ?? null,
        name: body.name ?? null,
        metadata: body.metadata ?? {},
      });
    }
    if (route === "POST /v1/checkout/sessions") {
      if (body.mode !== "subscription") return stripeError(400, "mode must be subscription");
      const sessionId = id("cs");
      return Response.json({
        id: sessionId,
        object: "checkout.session",
        mode: body.mode,
        customer: body.customer ?? null,
        client_reference_id: body.client_reference_id ?? null,
        metadata: body.metadata ?? {},
        success_url: body.success_url,
        cancel_url: body.cancel_url,
        status: "open",
        url: `https://checkout.stripe.test/c/pay/${sessionId}`,
      });
    }
    if (route === "POST /v1/billing_portal/sessions") {
      if (!body.customer) return stripeError(400, "Missing required param: customer.");
      const sessionId = id("bps");
      return Response.json({
        id: sessionId,
        object: "billing_portal.session",
        customer: body.customer,
        return_url: body.return_url ?? null,
        url: `https://billing.stripe.test/p/session/${sessionId}`,
      });
    }
    if (route === "GET /v1/invoices") {
      const data = invoices.get(body.customer) ?? [];
      return Response.json({ object: "list", data, has_more: false, url: "/v1/invoices" });
    }
    const cancel = url.pathname.match(/^\/v1\/subscriptions\/([^/]+)$/);
    if (req.method === "DELETE" && cancel) {
      if (state.failCancel) return stripeError(state.failCancel, "Cancellation failed");
      return Response.json({ id: cancel[1], object: "subscription", status: "canceled" });
    }
    return stripeError(404, `Unrecognized request URL (${req.method}: ${url.pathname})`);
  });
  state.url = `http://127.0.0.1:${server.addr.port}`;
  return state;
}

/** A Stripe invoice object as the list endpoint returns it. */
export function invoiceObject(customer: string, fields: Record<string, unknown> = {}) {
  const invoiceId = id("in");
  return {
    id: invoiceId,
    object: "invoice",
    customer,
    created: 1767225600,
    amount_due: 990,
    amount_paid: 990,
    total: 990,
    currency: "usd",
    status: "paid",
    hosted_invoice_url: `https://invoice.stripe.test/i/${invoiceId}`,
    invoice_pdf: `https://invoice.stripe.test/i/${invoiceId}/pdf`,
    ...fields,
  };
}
