// Account: personal access tokens and webhooks (the secret shown once, to copy), the signed-in
// sessions, and the plan with Stripe's checkout and portal (503 when billing is not set up).
import { api, ApiError } from "./api.js";
import { announce, card, copyable, field, form, h, show, when } from "./ui.js";

const EVENTS = [
  "push.published",
  "push.confirmed",
  "push.failed",
  "device.online",
  "device.offline",
  "device.battery_low",
  "plugin.data_failed",
];

/**
 * A list loaded by `load`, each row with a button that removes its item; `reload()` draws it
 * again (after one is added), leaving the rest of the page (a secret shown once) as it is.
 */
function revocable(label, load, describe, remove) {
  const el = h("div", {});
  const row = (item) => {
    const [title, ...details] = describe(item);
    return h(
      "li",
      { class: "row between" },
      h("div", {}, h("strong", {}, title), h("span", { class: "hint" }, ...details)),
      h("button", {
        type: "button",
        class: "danger small",
        "aria-label": `Revoke ${title}`,
        onclick: async () => {
          if (!confirm(`Revoke ${title}?`)) return;
          await remove(item);
          announce(`${title} revoked`);
          await el.reload();
        },
      }, "Revoke"),
    );
  };
  el.reload = async () => {
    const items = await load();
    el.replaceChildren(
      items.length
        ? h("ul", { class: "list", "aria-label": label }, items.map(row))
        : h("p", { class: "empty" }, `No ${label} yet.`),
    );
  };
  return el;
}

async function tokensCard() {
  const name = h("input", { required: true, maxLength: 100, placeholder: "Home Assistant" });
  const created = h("div", { "aria-live": "polite" });
  const list = revocable(
    "tokens",
    async () => (await api("/api/personal-access-tokens")).filter((t) => !t.revokedAt),
    (t) => [t.name, ` ${t.prefix}…${t.lastFour} · used `, when(t.lastUsedAt, "never")],
    (t) => api(`/api/personal-access-tokens/${t.id}`, { method: "DELETE" }),
  );
  await list.reload();
  return card(
    "Personal access tokens",
    h("p", { class: "hint" }, "For scripts and integrations (Home Assistant, MCP)."),
    list,
    form({}, [field("Name", name), h("button", { type: "submit" }, "Create token")], async () => {
      const token = await api("/api/personal-access-tokens", {
        method: "POST",
        body: { name: name.value.trim() },
      });
      created.replaceChildren(
        h("p", { class: "notice" }, "Copy it now: it is not shown again."),
        copyable(`Token ${token.name}`, token.token),
      );
      name.value = "";
      await list.reload();
    }),
    created,
  );
}

async function webhooksCard() {
  const url = h("input", {
    type: "url",
    required: true,
    maxLength: 2000,
    placeholder: "https://example.com/hooks",
  });
  const boxes = EVENTS.map((event) =>
    h("input", { type: "checkbox", value: event, checked: event.startsWith("push.") })
  );
  const created = h("div", { "aria-live": "polite" });
  const list = revocable(
    "webhooks",
    () => api("/api/webhooks"),
    (w) => [w.url, ` ${w.events.join(", ")} · ${w.state}`],
    (w) => api(`/api/webhooks/${w.id}`, { method: "DELETE" }),
  );
  await list.reload();
  return card(
    "Webhooks",
    list,
    form({}, [
      field("URL", url),
      h(
        "fieldset",
        { class: "checks" },
        h("legend", {}, "Events"),
        boxes.map((box) => h("label", { class: "check" }, box, ` ${box.value}`)),
      ),
      h("button", { type: "submit" }, "Add webhook"),
    ], async () => {
      const events = boxes.filter((b) => b.checked).map((b) => b.value);
      if (!events.length) throw new Error("Choose at least one event.");
      const webhook = await api("/api/webhooks", {
        method: "POST",
        body: { url: url.value.trim(), events },
      });
      created.replaceChildren(
        h("p", { class: "notice" }, "Copy the signing secret now: it is not shown again."),
        copyable("Signing secret", webhook.secret),
      );
      url.value = "";
      await list.reload();
    }),
    created,
  );
}

/** "Chrome on Android" from a User-Agent, enough to tell one's sessions apart. */
function browserOf(agent) {
  const browser = ((agent || "").match(/(Firefox|Chrome|Safari)\//) || [])[1];
  const system = ((agent || "").match(/(Android|iPhone|iPad|Windows|Mac OS X|Linux)/) || [])[1];
  if (!browser) return agent || "Unknown browser";
  return system ? `${browser} on ${system.replace("Mac OS X", "macOS")}` : browser;
}

async function sessionsCard() {
  const list = revocable(
    "sessions",
    () => api("/auth/sessions"),
    (s) => [browserOf(s.userAgent), ` ${s.ip || ""} · last used `, when(s.lastUsedAt)],
    (s) => api(`/auth/sessions/${s.id}`, { method: "DELETE" }),
  );
  await list.reload();
  return card("Signed-in sessions", list);
}

/** Opens a Stripe page the service made (checkout or portal). */
async function toStripe(path, body) {
  try {
    const { url } = await api(path, { method: "POST", body });
    location.assign(url);
  } catch (error) {
    if (error instanceof ApiError && error.status === 503) {
      throw new Error("Billing is not set up on this service.");
    }
    throw error;
  }
}

/** Pro, billed monthly or yearly: the button pressed says which. */
function upgradeForm() {
  let interval = "monthly";
  const button = (value, label) =>
    h("button", { type: "submit", name: value, onclick: () => (interval = value) }, label);
  return form(
    { class: "row" },
    [button("monthly", "Upgrade monthly"), button("yearly", "Upgrade yearly")],
    () => toStripe("/auth/subscription/checkout", { interval }),
  );
}

function planCard(subscription) {
  const paid = subscription.status === "active" || subscription.status === "trialing";
  return card(
    "Plan",
    h(
      "p",
      {},
      paid
        ? `Plan: ${subscription.plan || "paid"}${
          subscription.interval ? `, billed ${subscription.interval}` : ""
        }`
        : `Plan: ${subscription.plan || "free"}`,
      paid && subscription.currentPeriodEnd
        ? [", renews ", when(subscription.currentPeriodEnd)]
        : "",
    ),
    paid
      ? form(
        {},
        [h("button", { type: "submit", class: "secondary" }, "Manage billing")],
        () => toStripe("/auth/subscription/portal"),
      )
      : upgradeForm(),
  );
}

export async function accountView() {
  const [me, subscription, tokens, webhooks, sessions] = await Promise.all([
    api("/auth/me"),
    api("/auth/subscription"),
    tokensCard(),
    webhooksCard(),
    sessionsCard(),
  ]);
  show(
    h("h1", {}, "Account"),
    h("p", { class: "lead" }, `Signed in as ${me.username} (${me.email}).`),
    planCard(subscription),
    tokens,
    webhooks,
    sessions,
  );
}
