// The signed-in user's tokens, kept in this tab's sessionStorage (docs/decisions.md, "The
// owner's console"): a reload keeps the session, closing the tab ends it, and no other tab or
// origin reads it. Sign-out revokes the refresh token on the service too.
const KEY = "dds.console.session";
const listeners = new Set();

function load() {
  try {
    return JSON.parse(sessionStorage.getItem(KEY) || "null");
  } catch {
    return null;
  }
}

let state = load();
let refreshing = null;

function save(next) {
  state = next;
  if (next) sessionStorage.setItem(KEY, JSON.stringify(next));
  else sessionStorage.removeItem(KEY);
  for (const listener of listeners) listener(next);
}

async function post(path, body) {
  const res = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return res.ok ? res.json() : null;
}

export const session = {
  get accessToken() {
    return state && state.accessToken;
  },
  get refreshToken() {
    return state && state.refreshToken;
  },
  get user() {
    return state && state.user;
  },
  /** Keeps the tokens and user of an AuthResult. */
  start({ accessToken, refreshToken, user }) {
    save({ accessToken, refreshToken, user });
  },
  renew(accessToken) {
    if (state) save({ ...state, accessToken });
  },
  /** Trades the refresh token for new tokens, once at a time; false when it is no longer good. */
  refresh() {
    refreshing ??= post("/auth/refresh", { refreshToken: state.refreshToken }).then((tokens) => {
      refreshing = null;
      if (tokens) save({ ...state, ...tokens });
      return Boolean(tokens);
    });
    return refreshing;
  },
  async signOut() {
    const current = state;
    save(null);
    if (!current) return;
    await fetch("/auth/logout", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${current.accessToken}`,
      },
      body: JSON.stringify({ refreshToken: current.refreshToken }),
    }).catch(() => {});
  },
  clear() {
    save(null);
  },
  onChange(listener) {
    listeners.add(listener);
  },
};
