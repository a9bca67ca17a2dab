import { expect, type Page, test } from "@playwright/test";
import { resolve } from "node:path";
import { shot, world } from "../world.ts";

const PHOTO = resolve("src/infra/render/testdata/photos/misty.jpg");
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** Screenshots of the page at phone and desktop width. */
async function shots(page: Page, name: string) {
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: shot(`console-${name}-phone`), fullPage: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: shot(`console-${name}-desktop`), fullPage: true });
}

/** A display's first boot, as a TRMNL does it: its key and the code its screen shows. */
async function setUpDisplay(url: string, mac: string) {
  const res = await fetch(`${url}/api/setup`, { headers: { ID: mac } });
  expect(res.status).toBe(200);
  return await res.json() as { api_key: string; friendly_id: string };
}

async function signUp(page: Page, url: string, username: string) {
  await page.goto(`${url}/`);
  const form = page.getByRole("form", { name: "New here? Sign up" });
  await form.getByLabel("E-mail").fill(`${username}@example.com`);
  await form.getByLabel("Username").fill(username);
  await form.getByLabel("Password").fill("correct horse battery");
  await form.getByRole("button", { name: "Sign up" }).click();
  await expect(page.getByRole("heading", { name: "Devices", level: 1 })).toBeVisible();
}

test("the console at / has a strict CSP and no inline script", async ({ page }) => {
  const { url } = world();
  const res = await page.goto(`${url}/`);
  const csp = res!.headers()["content-security-policy"];
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toMatch(/script-src[^;]*unsafe/);
  expect(await page.locator("script:not([src])").count()).toBe(0);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();

  // A wrong password is refused in the form, by the service's message.
  const form = page.getByRole("form", { name: "Sign in" });
  await form.getByLabel("E-mail or username").fill("ada");
  await form.getByLabel("Password").fill("wrong password");
  await form.getByRole("button", { name: "Sign in" }).click();
  await expect(form.getByRole("alert")).toContainText(/invalid|incorrect|wrong/i);

  // The right one signs in; sign out comes back to the forms.
  await form.getByLabel("Password").fill("correct horse battery");
  await form.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Devices", level: 1 })).toBeVisible();
  await page.reload();
  await expect(page.getByRole("heading", { name: "Devices", level: 1 })).toBeVisible();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
});

test("Google sign-in started from the console comes back to the console, signed in", async ({ page }) => {
  const { url } = world();
  await page.goto(`${url}/`);
  await shots(page, "signed-out-providers");
  await page.getByRole("link", { name: "Sign in with Google" }).click();
  await expect(page.getByRole("heading", { name: "Devices", level: 1 })).toBeVisible();
  // The tokens were taken out of the address bar; the session is the provider's user.
  expect(new URL(page.url()).hash).toBe("#/devices");
  await page.getByRole("link", { name: "Account" }).click();
  await expect(page.getByText("(browser@example.com)")).toBeVisible();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("link", { name: "Sign in with Google" })).toBeVisible();

  // A sign-in the provider refused comes back with an error: said on the page, nobody signed in.
  await page.goto(`${url}/#error=access_denied&error_description=The+provider+did+not+sign+you+in`);
  await expect(page.getByRole("alert")).toHaveText("The provider did not sign you in");
  expect(new URL(page.url()).hash).toBe("");
  await expect(page.getByRole("button", { name: "Sign out" })).toBeHidden();
});

test("a person signs up, claims a display, pushes a photo and the display's poll gets it", async ({ page }) => {
  const { url } = world();
  const display = await setUpDisplay(url, "AA:BB:CC:00:00:38");
  await signUp(page, url, "grace");
  await expect(page.getByText("No displays yet")).toBeVisible();
  await shots(page, "devices-empty");

  // A wrong code is refused; the right one opens the display's page.
  await page.getByLabel("Code on the display's screen").fill("ZZZZZZ");
  await page.getByRole("button", { name: "Claim" }).click();
  await expect(page.getByRole("alert").first()).toBeVisible();
  await page.getByLabel("Code on the display's screen").fill(display.friendly_id.toLowerCase());
  await page.getByRole("button", { name: "Claim" }).click();
  await expect(page.getByRole("heading", { name: "display-aabbcc000038", level: 1 })).toBeVisible();
  await expect(page.getByText("Nothing pushed yet.")).toBeVisible();
  await page.getByLabel("Nickname").fill("Kitchen");
  await page.getByRole("button", { name: "Save nickname" }).click();
  await expect(page.getByRole("status")).toHaveText("Nickname saved");
  // The sleep window's fields show only when it is on.
  await expect(page.getByLabel("Time zone")).toBeHidden();
  await page.getByLabel("Sleep at night").check();
  await expect(page.getByLabel("Time zone")).toBeVisible();
  await page.getByLabel("Sleep at night").uncheck();
  await page.getByLabel("Grey depth").selectOption("2");
  await page.getByRole("button", { name: "Save profile" }).click();
  await expect(page.getByRole("status")).toHaveText("Profile saved");
  await shots(page, "device");

  // The photo, drawn for the panel before it is sent, then sent.
  await page.getByRole("link", { name: "Push a photo" }).click();
  await expect(page.getByRole("heading", { name: "Push a photo", level: 1 })).toBeVisible();
  await page.getByLabel("Photo", { exact: true }).setInputFiles(PHOTO);
  const preview = page.getByRole("img", { name: "How the photo will look on the display" });
  await expect(preview).toBeVisible();
  expect(
    // The canvas's own pixel size (Deno's type check has no DOM library: read it structurally).
    await preview.evaluate((c) => {
      const canvas = c as unknown as { width: number; height: number };
      return [canvas.width, canvas.height];
    }),
  )
    .toEqual([800, 480]);
  await expect(page.getByText("800x480, 4 greys")).toBeVisible();
  await page.getByLabel("Title").fill("Misty morning");
  await shots(page, "photo-preview");
  await page.getByRole("button", { name: "Send to display" }).click();
  await expect(page.getByRole("status")).toContainText("Sent", { timeout: 60_000 });
  const history = page.getByRole("list", { name: "Pushes, newest first" });
  await expect(history.getByText("Misty morning")).toBeVisible();
  await expect(history.locator("img.panel").first()).toBeVisible();

  // The display's next poll gets the picture; downloading it is "fetched" in the history.
  const poll = await fetch(`${url}/api/display`, { headers: { "access-token": display.api_key } });
  const body = await poll.json();
  expect(body.image_url).toContain("/api/display/image/");
  expect((await fetch(body.image_url)).status).toBe(200);
  await page.reload();
  await expect(history.locator("li").first().getByText("Fetched")).toBeVisible();
  await expect(history.locator("li").first().locator("dd").nth(1)).not.toHaveText("not yet");
  await shots(page, "photo-sent");

  // The device list shows it by its nickname.
  await page.getByRole("link", { name: "Devices" }).click();
  await expect(page.getByRole("link", { name: /Kitchen/ })).toBeVisible();
  await shots(page, "devices");
});

test("a Kindle's key: an enrollment token with what to type, and the key works at once", async ({ page }) => {
  const { url } = world();
  await signUp(page, url, "kindle-owner");
  await page.getByLabel("Name").fill("Bedroom Kindle");
  await page.getByRole("button", { name: "Make a key" }).click();
  const key = await page.getByLabel("apikey.txt, beside TRMNL.sh").inputValue();
  await expect(page.getByLabel("Environment")).toHaveValue(
    `TRMNL_BASE_URL=${url} TRMNL_API_KEY=${key}`,
  );
  await expect(page.getByLabel("In TRMNL.sh, under USER SETTINGS")).toHaveValue(
    `BASE_URL="${url}"`,
  );
  await shots(page, "enrollment");

  // The Kindle's first poll with that key makes it a device of this user, named by the token.
  const poll = await fetch(`${url}/api/display`, {
    headers: { "access-token": key, ID: "AA:BB:CC:00:00:39" },
  });
  expect(poll.status).toBe(200);
  await poll.body?.cancel();
  await page.reload();
  await expect(page.getByRole("link", { name: /Bedroom Kindle/ })).toBeVisible();
});

test("a webhook plugin: its URL to copy, data posted to it, and the preview redrawn", async ({ page }) => {
  const { url } = world();
  await signUp(page, url, "linus");
  await page.getByRole("link", { name: "Plugins" }).click();
  await expect(page.getByText("No plugins yet.")).toBeVisible();
  await shots(page, "plugins-empty");
  await page.getByLabel("Name").fill("Living room");
  await page.getByRole("button", { name: "Create plugin" }).click();
  await expect(page.getByRole("heading", { name: "Living room", level: 1 })).toBeVisible();
  const webhookUrl = await page.getByLabel("Webhook URL").inputValue();
  expect(webhookUrl).toContain("/api/custom_plugins/");

  const preview = page.getByRole("img", { name: "Preview of Living room" });
  await expect(preview).toHaveJSProperty("naturalWidth", 800);
  const before = await preview.getAttribute("src");

  // Data posted as a script would: the merge variables show and the preview is drawn again.
  const posted = await fetch(webhookUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ merge_variables: { temperature: 21.5, room: "Living room" } }),
  });
  expect(posted.ok).toBe(true);
  await expect(page.getByLabel("Merge variables")).toContainText('"temperature": 21.5');
  await expect.poll(() => preview.getAttribute("src")).not.toBe(before);

  // Markup edits are saved and previewed a moment after typing stops.
  const drawn = await preview.getAttribute("src");
  await page.getByLabel("Full view (Liquid and HTML)").fill(
    '<div class="layout"><span class="value value--xxlarge">{{ temperature }}°C</span></div>',
  );
  await expect(page.getByText("Saved", { exact: true })).toBeVisible();
  await expect.poll(() => preview.getAttribute("src")).not.toBe(drawn);
  await shots(page, "plugin");
  await page.getByRole("link", { name: "Plugins", exact: true }).first().click();
  await expect(page.getByRole("link", { name: "Living room" })).toBeVisible();
  await shots(page, "plugins");
});

test("account: a personal access token is shown once and revoked", async ({ page }) => {
  const { url } = world();
  await signUp(page, url, "barbara");
  await page.getByRole("link", { name: "Account" }).click();
  await expect(page.getByRole("heading", { name: "Account", level: 1 })).toBeVisible();
  await page.getByLabel("Name").fill("Home Assistant");
  await page.getByRole("button", { name: "Create token" }).click();
  const token = await page.getByLabel("Token Home Assistant").inputValue();
  expect(token).toMatch(/^pat_/);
  const me = await fetch(`${url}/api/devices`, { headers: { authorization: `Bearer ${token}` } });
  expect(me.status).toBe(200);
  // Checkout without Stripe configured says so instead of failing silently.
  await page.getByRole("button", { name: "Upgrade monthly" }).click();
  await expect(page.getByText("Billing is not set up on this service.")).toBeVisible();
  await shots(page, "account");

  page.once("dialog", (dialog) => dialog.accept());
  await page.getByRole("button", { name: "Revoke Home Assistant" }).click();
  await expect(page.getByText("No tokens yet.")).toBeVisible();
  const after = await fetch(`${url}/api/devices`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(after.status).toBe(401);
});

test("a playlist of a plugin and a mashup, reordered, saved and run on a display", async ({ page }) => {
  const { url } = world();
  const display = await setUpDisplay(url, "AA:BB:CC:00:00:40");
  await signUp(page, url, "hedy");
  const { accessToken } = await page.evaluate(() =>
    JSON.parse(sessionStorage.getItem("dds.console.session")!)
  );
  const call = async (path: string, method = "GET", body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.ok).toBe(true);
    return await res.json();
  };
  const { device } = await call("/api/devices/claim", "POST", { code: display.friendly_id });
  const markup = '<div class="layout"><span class="value">{{ word }}</span></div>';
  for (const word of ["Hello", "World"]) {
    await call("/api/plugins", "POST", {
      name: word,
      strategy: "static",
      staticData: { word },
      markup: { full: markup, halfVertical: markup },
    });
  }

  await page.getByRole("link", { name: "Playlists" }).click();
  await expect(page.getByText("No playlists yet.")).toBeVisible();
  await page.getByLabel("Name").fill("Kitchen");
  await page.getByRole("button", { name: "Create playlist" }).click();
  await expect(page.getByRole("heading", { name: "Kitchen", level: 1 })).toBeVisible();
  await expect(page.getByLabel("Time zone")).not.toHaveValue("");

  // One plugin for two minutes, then a mashup of both halves on weekdays in the morning.
  await page.getByRole("button", { name: "Add a plugin" }).click();
  const first = page.getByRole("group", { name: "Item 1" });
  await first.getByLabel("Plugin").selectOption({ label: "World" });
  await first.getByLabel("Minutes").fill("2");
  await first.getByLabel("Seconds").fill("30");
  await page.getByRole("button", { name: "Add a mashup" }).click();
  const second = page.getByRole("group", { name: "Item 2" });
  await expect(second.getByLabel("Layout")).toHaveValue("1Lx1R");
  await second.getByLabel("Layout").selectOption("2x2");
  await expect(second.getByLabel(/^Slot/)).toHaveCount(4);
  await second.getByLabel("Layout").selectOption("1Lx1R");
  await expect(second.getByLabel(/^Slot/)).toHaveCount(2);
  await second.getByLabel("Slot 1").selectOption({ label: "Hello" });
  await second.getByLabel("Slot 2").selectOption({ label: "World" });
  for (const day of ["Sun", "Sat"]) await second.getByLabel(day).uncheck();
  await second.getByLabel("From").fill("07:00");
  await second.getByLabel("Until").fill("09:00");

  // The mashup moves up by keyboard; the focus stays on the moved item.
  await second.getByRole("button", { name: "Move item 2 up" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("group", { name: "Item 1" }).getByLabel("Layout")).toBeVisible();
  await expect(
    page.getByRole("group", { name: "Item 1" }).getByRole("button", { name: "Move item 1 down" }),
  )
    .toBeFocused();

  // A duration under 5 seconds is refused by the service, its message beside the form.
  const plugin = page.getByRole("group", { name: "Item 2" });
  await plugin.getByLabel("Minutes").fill("0");
  await plugin.getByLabel("Seconds").fill("3");
  await page.getByRole("button", { name: "Save playlist" }).click();
  await expect(page.getByRole("alert")).toContainText("at least 5");
  await plugin.getByLabel("Minutes").fill("2");
  await plugin.getByLabel("Seconds").fill("30");
  await page.getByRole("button", { name: "Save playlist" }).click();
  await expect(page.getByRole("status")).toHaveText("Playlist saved");

  await page.getByLabel("display-aabbcc000040").check();
  await expect(page.getByRole("status")).toHaveText("display-aabbcc000040 runs Kitchen");
  await shots(page, "playlist");

  const playlists = await call("/api/playlists");
  expect(playlists).toHaveLength(1);
  const plugins = await call("/api/plugins");
  const idOf = (name: string) => plugins.find((p: { name: string }) => p.name === name).id;
  expect(playlists[0].items).toEqual([
    {
      mashup: { layout: "1Lx1R", pluginIds: [idOf("Hello"), idOf("World")] },
      durationSeconds: 900,
      days: [1, 2, 3, 4, 5],
      from: "07:00",
      until: "09:00",
    },
    { pluginId: idOf("World"), durationSeconds: 150 },
  ]);
  expect(await call(`/api/devices/${device.id}/playlist`)).toEqual({
    playlistId: playlists[0].id,
  });

  await page.getByRole("link", { name: "Playlists", exact: true }).first().click();
  await expect(page.getByText("2 items · on display-aabbcc000040")).toBeVisible();
  await shots(page, "playlists");
});
