// The owner's console: one page, its sections chosen by the URL fragment (#/devices,
// #/devices/{id}, #/send (#/photo before), #/plugins, #/plugins/{id}, #/playlists, #/playlists/{id}, #/account).
// Signed out, every fragment shows the sign-in and sign-up forms.
import { publicApi } from "./api.js";
import { session } from "./session.js";
import { announce, field, form, h, show } from "./ui.js";
import { devicesView, deviceView } from "./devices.js";
import { sendView } from "./send.js";
import { pluginsView, pluginView } from "./plugins.js";
import { playlistsView, playlistView } from "./playlists.js";
import { accountView } from "./account.js";

const ROUTES = [
  [/^#\/devices\/([\w-]+)$/, (id) => deviceView(id)],
  [/^#\/(?:send|photo)(?:\/([\w-]+))?$/, (id) => sendView(id)],
  [/^#\/plugins\/([\w-]+)$/, (id) => pluginView(id)],
  [/^#\/plugins$/, () => pluginsView()],
  [/^#\/playlists\/([\w-]+)$/, (id) => playlistView(id)],
  [/^#\/playlists$/, () => playlistsView()],
  [/^#\/account$/, () => accountView()],
];

const PROVIDER_NAMES = { google: "Google", apple: "Apple" };

/** Why a Google or Apple sign-in came back without tokens, shown on the sign-in page. */
let signInError = null;

/**
 * A Google or Apple sign-in ends here with the tokens (or an error) in the fragment: keep the
 * tokens, then take them out of the address bar and the history.
 */
async function finishProviderSignIn() {
  const fields = new URLSearchParams(location.hash.slice(1));
  history.replaceState(null, "", location.pathname);
  if (fields.has("error")) {
    signInError = fields.get("error_description") || "The sign-in did not finish.";
    return;
  }
  const accessToken = fields.get("accessToken");
  const res = await fetch("/auth/me", { headers: { authorization: `Bearer ${accessToken}` } });
  if (!res.ok) {
    signInError = "The sign-in did not finish.";
    return;
  }
  session.start({ accessToken, refreshToken: fields.get("refreshToken"), user: await res.json() });
}

function signInView() {
  const identifier = h("input", {
    name: "identifier",
    autocomplete: "username",
    required: true,
    autocapitalize: "none",
  });
  const password = h("input", {
    name: "password",
    type: "password",
    autocomplete: "current-password",
    required: true,
  });
  const signIn = form({ "aria-labelledby": "signin-title" }, [
    h("h2", { id: "signin-title" }, "Sign in"),
    field("E-mail or username", identifier),
    field("Password", password),
    h("button", { type: "submit" }, "Sign in"),
  ], async () => {
    session.start(
      await publicApi("/auth/login", { identifier: identifier.value, password: password.value }),
    );
  });

  const email = h("input", { name: "email", type: "email", autocomplete: "email", required: true });
  const username = h("input", {
    name: "username",
    autocomplete: "username",
    required: true,
    pattern: "[A-Za-z0-9_.\\-]{3,32}",
    autocapitalize: "none",
  });
  const newPassword = h("input", {
    name: "new-password",
    type: "password",
    autocomplete: "new-password",
    required: true,
    minLength: 8,
  });
  const signUp = form({ "aria-labelledby": "signup-title" }, [
    h("h2", { id: "signup-title" }, "New here? Sign up"),
    field("E-mail", email),
    field("Username", username, "3 to 32 letters, digits, dots, dashes or underscores"),
    field("Password", newPassword, "At least 8 characters"),
    h("button", { type: "submit" }, "Sign up"),
  ], async () => {
    session.start(
      await publicApi("/auth/register", {
        email: email.value,
        username: username.value,
        password: newPassword.value,
      }),
    );
  });

  // Google and Apple, when the service has them configured; they come back to this page.
  const providers = (document.body.dataset.providers || "").split(" ").filter(Boolean);
  const viaProvider = providers.length
    ? h(
      "div",
      { class: "card providers" },
      providers.map((p) =>
        h(
          "a",
          { class: "button secondary", href: `/auth/oauth/${p}?client=console` },
          `Sign in with ${PROVIDER_NAMES[p]}`,
        )
      ),
    )
    : null;

  show(
    h("h1", {}, "Your displays"),
    h(
      "p",
      { class: "lead" },
      "Claim the display that shows a code, send it photos and screens drawn from your data.",
    ),
    signInError ? h("p", { class: "error", role: "alert" }, signInError) : null,
    viaProvider,
    h(
      "div",
      { class: "grid two" },
      h("div", { class: "card" }, signIn),
      h("div", { class: "card" }, signUp),
    ),
  );
}

async function route() {
  const nav = document.getElementById("nav");
  nav.hidden = !session.accessToken;
  if (!session.accessToken) return signInView();
  const hash = location.hash || "#/devices";
  for (const link of nav.querySelectorAll("a")) {
    const here = hash === link.hash || hash.startsWith(`${link.hash}/`);
    if (here) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  const match = ROUTES.find(([pattern]) => pattern.test(hash));
  try {
    await (match ? match[1](...hash.match(match[0]).slice(1)) : devicesView());
  } catch (error) {
    if (!session.accessToken) return;
    show(
      h("h1", {}, "Something went wrong"),
      h("p", { class: "error", role: "alert" }, error.message),
    );
  }
}

const signOut = h("button", {
  type: "button",
  class: "link",
  id: "sign-out",
  onclick: async () => {
    await session.signOut();
    announce("Signed out");
  },
}, "Sign out");
document.querySelector(".top").append(signOut);

function showSignOut() {
  signOut.hidden = !session.accessToken;
}

// Signing in or out redraws; a token renewal or refresh changes nothing on screen.
let signedIn = Boolean(session.accessToken);
session.onChange((next) => {
  showSignOut();
  if (Boolean(next) === signedIn) return;
  signedIn = Boolean(next);
  if (next) {
    announce(`Signed in as ${next.user.username}`);
    if (location.hash !== "#/devices") return void (location.hash = "#/devices");
  }
  route();
});
/** The page for the fragment, after keeping the tokens a provider's sign-in brought. */
async function arrive() {
  if (/^#(accessToken|error)=/.test(location.hash)) await finishProviderSignIn();
  await route();
}

addEventListener("hashchange", () => {
  arrive();
  document.getElementById("main").focus({ preventScroll: true });
});
showSignOut();
arrive();
