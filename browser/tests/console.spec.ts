import { expect, type Page, test } from "@playwright/test";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { Buffer } from "node:buffer";
import { zipSync } from "fflate";
import { signedEvent, stripeObjects } from "../../tests/helpers/stripe_events.ts";
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

/**
 * `deno task device-sim --trmnl`, as a person runs it beside the console: a TRMNL display over
 * HTTP polling every second; its lines are kept and can be waited for.
 */
function startSimulator(url: string, mac: string) {
  const out = mkdtempSync(join(tmpdir(), "dds-console-sim-"));
  const child = spawn(
    "deno",
    ["task", "device-sim", "--trmnl", "--api", url, "--out", out, "--every", "1", "--mac", mac],
    { detached: true, stdio: ["ignore", "pipe", "inherit"] },
  );
  const lines: string[] = [];
  let buffered = "";
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split("\n");
    buffered = parts.pop()!;
    lines.push(...parts);
  });
  /** The first line matching `pattern` after the first `from` lines, waited for. */
  const line = async (pattern: RegExp, from = 0) => {
    let found: string | undefined;
    await expect.poll(() => (found = lines.slice(from).find((l) => pattern.test(l))), {
      timeout: 60_000,
      message: `the simulator's output so far:\n${lines.join("\n")}`,
    }).toBeTruthy();
    return found!;
  };
  const stop = () => {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch { /* already gone */ }
    rmSync(out, { recursive: true, force: true });
  };
  return { lines, line, stop };
}

/** The size of a PNG file, from its IHDR chunk. */
function pngSize(file: string): [number, number] {
  const bytes = readFileSync(file);
  expect(bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

/** The signed-in console user's access token (kept in the tab's session storage). */
async function tokenOf(page: Page): Promise<string> {
  const { accessToken } = await page.evaluate(() =>
    JSON.parse(sessionStorage.getItem("dds.console.session")!)
  );
  return accessToken;
}

/**
 * A Scene made elsewhere, as the app's `hardcode` flow makes one from a photo (SPEC 4.7): created,
 * its picture uploaded to the ticket, confirmed, and waited for until ready.
 */
async function makeScene(url: string, token: string) {
  const api = `${url}/api/app/v1`;
  const auth = { authorization: `Bearer ${token}` };
  const photo = readFileSync(PHOTO);
  const created = await fetch(`${api}/contents`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json", "idempotency-key": "console-scene-1" },
    body: JSON.stringify({
      mode: "hardcode",
      title: "Misty Scene",
      output: { viewport: { width: 800, height: 480 }, colorMode: "grayscale" },
      assets: [{ type: "image", contentType: "image/jpeg", sizeBytes: photo.byteLength }],
    }),
  });
  expect(created.status).toBe(201);
  const content = await created.json();
  const ticket = content.assets[0].upload;
  const form = new FormData();
  for (const [key, value] of Object.entries(ticket.fields)) form.append(key, value as string);
  form.append("file", new Blob([photo], { type: "image/jpeg" }));
  expect((await fetch(ticket.url, { method: "POST", body: form })).ok).toBe(true);
  const confirmed = await fetch(`${api}/contents/${content.id}/confirm`, {
    method: "POST",
    headers: auth,
  });
  expect(confirmed.status).toBe(202);
  await expect.poll(async () => {
    const now = await (await fetch(`${api}/contents/${content.id}`, { headers: auth })).json();
    return now.state;
  }, { timeout: 60_000 }).toBe("ready");
}

test("a person claims a display run by device-sim --trmnl, sends a photo, a note and a Scene, and the simulator shows each", async ({ page }) => {
  test.setTimeout(240_000);
  const { url } = world();
  const sim = startSimulator(url, "AA:BB:CC:00:00:38");
  try {
    const code = (await sim.line(/claim code/)).match(/claim code (\w+)/)![1];
    await signUp(page, url, "grace");
    await expect(page.getByText("No displays yet")).toBeVisible();
    await shots(page, "devices-empty");

    // A wrong code is refused; the one the simulator's screen shows opens the display's page.
    await page.getByLabel("Code on the display's screen").fill("ZZZZZZ");
    await page.getByRole("button", { name: "Claim" }).click();
    await expect(page.getByRole("alert").first()).toBeVisible();
    await page.getByLabel("Code on the display's screen").fill(code.toLowerCase());
    await page.getByRole("button", { name: "Claim" }).click();
    await expect(page.getByRole("heading", { name: "display-aabbcc000038", level: 1 }))
      .toBeVisible();
    await expect(page.getByText("Nothing pushed yet.")).toBeVisible();
    const deviceId = new URL(page.url()).hash.split("/")[2];
    /** The simulator shows the push the device has now (what the owner just sent). */
    const showsCurrent = async (from: number) => {
      const res = await fetch(`${url}/api/devices/${deviceId}/push`, {
        headers: { authorization: `Bearer ${await tokenOf(page)}` },
      });
      expect(res.status).toBe(200);
      const { pushId } = await res.json();
      return await sim.line(new RegExp(`showing push ${pushId} `), from);
    };
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
    // Claimed, the simulator's next poll shows the ready screen instead of the code.
    await sim.line(/showing the ready screen/);

    // The photo, drawn for the panel before it is sent, then sent.
    await page.getByRole("link", { name: "Send a photo, note or Scene" }).click();
    await expect(page.getByRole("heading", { name: "Send to a display", level: 1 })).toBeVisible();
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
    await page.getByLabel("Title", { exact: true }).fill("Misty morning");
    await shots(page, "photo-preview");
    let seen = sim.lines.length;
    await page.getByRole("button", { name: "Send to display" }).click();
    await expect(page.getByRole("status")).toContainText("Sent", { timeout: 60_000 });
    const history = page.getByRole("list", { name: "Pushes, newest first" });
    await expect(history.getByText("Misty morning")).toBeVisible();
    await expect(history.locator("img.panel").first()).toBeVisible();

    // The simulator's next poll downloads it and "shows" it: a PNG of the panel's size.
    const shown = await showsCurrent(seen);
    expect(pngSize(shown.split(" → ")[1])).toEqual([800, 480]);
    // Polled again with it, the display has drawn it: fetched and shown in the history.
    await expect.poll(async () => {
      await page.reload();
      return await history.locator("li").first().locator(".badge").textContent();
    }, { timeout: 30_000 }).toBe("Shown");
    await expect(history.locator("li").first().locator("dd").nth(1)).not.toHaveText("not yet");
    await shots(page, "photo-sent");

    // A note, laid out by the service's note template, reaches the simulator the same way.
    seen = sim.lines.length;
    await page.getByLabel("Note title").fill("Shopping");
    await page.getByLabel("Note", { exact: true }).fill("Milk, bread, eggs and coffee.");
    await page.getByRole("button", { name: "Send note" }).click();
    await expect(page.getByRole("status")).toContainText("Sent", { timeout: 60_000 });
    await expect(history.locator("li").first().getByText("Shopping")).toBeVisible();
    await showsCurrent(seen);

    // A Scene made in the app is listed with its picture and sent with its button.
    await makeScene(url, await tokenOf(page));
    // Its picture is drawn a moment after it is ready: "Drawing…" until then.
    await sceneListed(page);
    seen = sim.lines.length;
    await page.getByRole("button", { name: "Send Scene 1 to Kitchen" }).click();
    await expect(page.getByRole("status")).toContainText("Sent", { timeout: 60_000 });
    await showsCurrent(seen);
    // Describing one needs the Pro plan: the service's refusal is shown in the form.
    await page.getByLabel("What the Scene shows").fill("Today's weather in Lisbon");
    await page.getByRole("button", { name: "Make Scene" }).click();
    await expect(page.getByRole("form", { name: "Describe a Scene" }).getByRole("alert"))
      .toContainText(/plan/i);
    await shots(page, "send");

    // A note for the assistant goes through the content pipeline: summarised, then placed.
    seen = sim.lines.length;
    await page.getByLabel("Note for the assistant", { exact: true }).fill(
      "Dentist on Friday at 9. Bring the insurance card.",
    );
    await page.getByRole("button", { name: "Keep note" }).click();
    const notes = page.getByRole("list", { name: "Your notes, newest first" });
    await expect.poll(async () => {
      await page.getByRole("button", { name: "Refresh" }).click();
      return await notes.locator("li").first().locator(".badge").textContent();
    }, { timeout: 60_000 }).toBe("Summarised");
    await page.getByRole("button", { name: "Place notes now" }).click();
    await expect(page.getByRole("status")).toHaveText("The assistant is placing your notes");
    await expect.poll(async () => {
      await page.getByRole("button", { name: "Refresh" }).click();
      return await notes.locator("li").first().textContent();
    }, { timeout: 60_000 }).toContain("On 1 display");
    // The agent's push, once drawn, is new in the queue: the simulator's next poll shows it.
    const items = await (await fetch(`${url}/api/raw-items?limit=1`, {
      headers: { authorization: `Bearer ${await tokenOf(page)}` },
    })).json();
    await sim.line(new RegExp(`showing push ${items.items[0].pushIds[0]} `), seen);
    await page.reload();
    await expect(history.locator("li").first()).toContainText("Dentist");

    // The device list shows it by its nickname.
    await page.getByRole("link", { name: "Devices" }).click();
    await expect(page.getByRole("link", { name: /Kitchen/ })).toBeVisible();
    // Its health as the simulator reports it on every poll (4.12 V; RSSI -55 on its page).
    await expect(page.getByText("93%")).toBeVisible();
    await page.getByRole("link", { name: /Kitchen/ }).click();
    await expect(page.getByText("-55 dBm")).toBeVisible();
    await page.getByRole("link", { name: "Devices", exact: true }).first().click();
    await shots(page, "devices");
  } finally {
    sim.stop();
  }
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

  // Unbound from its page (after a confirmation), it leaves the list and its key stops working.
  await page.getByRole("link", { name: /Bedroom Kindle/ }).click();
  await expect(page.getByRole("heading", { name: "Bedroom Kindle", level: 1 })).toBeVisible();
  page.once("dialog", (dialog) => dialog.accept());
  await page.getByRole("button", { name: "Unbind Bedroom Kindle" }).click();
  await expect(page.getByRole("status")).toHaveText("Bedroom Kindle unbound");
  await expect(page.getByText("No displays yet")).toBeVisible();
  const after = await fetch(`${url}/api/display`, {
    headers: { "access-token": key, ID: "AA:BB:CC:00:00:39" },
  });
  expect(after.status).toBe(401);
  await after.body?.cancel();
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

test("a polling plugin fetched by the service, pushed to a display; a recipe zip imported with its warnings", async ({ page }) => {
  const { url, portal } = world();
  const display = await setUpDisplay(url, "AA:BB:CC:00:00:41");
  await signUp(page, url, "ada-polls");
  const token = await tokenOf(page);
  const claimed = await fetch(`${url}/api/devices/claim`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ code: display.friendly_id }),
  });
  expect(claimed.status).toBe(200);
  const { device } = await claimed.json();

  // A polling plugin: the service fetches the URL; its answer is the merge variables.
  await page.getByRole("link", { name: "Plugins" }).click();
  await expect(page.getByRole("heading", { name: "Plugins", level: 1 })).toBeVisible();
  await page.getByLabel("Name").fill("Weather");
  await page.getByLabel("Starting point").selectOption("polling");
  await page.getByLabel("URL to fetch (JSON)").fill(`${portal}/weather.json`);
  await page.getByRole("button", { name: "Create plugin" }).click();
  await expect(page.getByRole("heading", { name: "Weather", level: 1 })).toBeVisible();
  await expect(page.getByLabel("Merge variables")).toContainText('"temperature_2m": 17.5');
  const preview = page.getByRole("img", { name: "Preview of Weather" });
  await expect(preview).toHaveJSProperty("naturalWidth", 800);
  await shots(page, "plugin-polling");

  // Pushed to the display: drawn for its panel and shown at its next poll.
  await page.getByLabel("Display", { exact: true }).selectOption({ label: "display-aabbcc000041" });
  await page.getByRole("button", { name: "Push to display" }).click();
  await expect(page.getByRole("status")).toHaveText(
    "Sent: display-aabbcc000041 shows it at its next poll",
    { timeout: 60_000 },
  );
  const current = await (await fetch(`${url}/api/devices/${device.id}/pushes?limit=1`, {
    headers: { authorization: `Bearer ${token}` },
  })).json();
  expect(current.items[0].status).toBe("PUBLISHED");
  const poll = await (await fetch(`${url}/api/display`, {
    headers: { "access-token": display.api_key },
  })).json();
  expect(poll.image_url).toContain(`/api/display/image/${current.items[0].pushId}`);

  // A recipe zip (a trmnlp project): imported, opened, and what will not work is listed.
  const text = new TextEncoder();
  const zip = zipSync({
    "clock/src/settings.yml": text.encode(
      'name: Clock recipe\nstrategy: static\nstatic_data: \'{"time": "07:30"}\'\n',
    ),
    "clock/src/full.liquid": text.encode(
      '<div class="layout"><span class="value">{{ time | frobnicate }}</span></div>',
    ),
  });
  await page.getByRole("link", { name: "Plugins", exact: true }).first().click();
  await expect(page.getByRole("heading", { name: "Plugins", level: 1 })).toBeVisible();
  await page.getByLabel("Recipe zip").setInputFiles({
    name: "clock.zip",
    mimeType: "application/zip",
    buffer: Buffer.from(zip),
  });
  await page.getByRole("button", { name: "Import recipe" }).click();
  await expect(page.getByRole("heading", { name: "Clock recipe", level: 1 })).toBeVisible();
  await expect(page.getByRole("heading", { name: "What will not work as on TRMNL" }))
    .toBeVisible();
  await expect(page.getByText(/frobnicate/).first()).toBeVisible();
  await expect(page.getByRole("img", { name: "Preview of Clock recipe" }))
    .toHaveJSProperty("naturalWidth", 800);
  await shots(page, "plugin-imported");
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

  // A webhook: its signing secret shown once, then listed and revoked.
  const { portal } = world();
  await page.getByLabel("URL", { exact: true }).fill(`${portal}/hook`);
  await page.getByRole("button", { name: "Add webhook" }).click();
  await expect(page.getByLabel("Signing secret")).not.toHaveValue("");
  const hooks = page.getByRole("list", { name: "webhooks" });
  await expect(hooks.getByText(`${portal}/hook`)).toBeVisible();
  await shots(page, "account-webhook");
  page.once("dialog", (dialog) => dialog.accept());
  await page.getByRole("button", { name: `Revoke ${portal}/hook` }).click();
  await expect(page.getByText("No webhooks yet.")).toBeVisible();
  const after = await fetch(`${url}/api/devices`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(after.status).toBe(401);
});

/** A Stripe webhook event, signed as Stripe signs it, delivered to the service. */
async function stripeEvent(url: string, secret: string, type: string, object: object) {
  const { payload, signature } = await signedEvent(secret, type, object as Record<string, unknown>);
  const res = await fetch(`${url}/auth/webhook/stripe`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": signature },
    body: payload,
  });
  expect(res.status).toBe(200);
  await res.body?.cancel();
}

/** Reloads the Send page until its Scenes list shows a picture (drawn a moment after ready). */
async function sceneListed(page: Page) {
  const scenes = page.getByRole("list", { name: "Your Scenes" });
  await expect.poll(async () => {
    await page.reload();
    await expect(page.getByRole("heading", { name: "Push history" })).toBeVisible();
    return await scenes.locator("img.panel").count();
  }, { timeout: 60_000 }).toBe(1);
}

test("the plan: Stripe's checkout and portal come back to the console; Pro makes a Scene from a description", async ({ page }) => {
  test.setTimeout(180_000);
  const { billing, stripeWebhookSecret } = world();
  // Stripe's hosted pages, as the browser would reach them (this machine has no network).
  for (
    const [host, title] of [["checkout.stripe.test", "Checkout"], ["billing.stripe.test", "Portal"]]
  ) {
    await page.route(`https://${host}/**`, (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<!doctype html><title>Stripe ${title}</title><h1>Stripe ${title}</h1>`,
      }));
  }
  const display = await setUpDisplay(billing, "AA:BB:CC:00:00:42");
  await signUp(page, billing, "pro-owner");
  const token = await tokenOf(page);
  const auth = { authorization: `Bearer ${token}` };
  const claimed = await fetch(`${billing}/api/devices/claim`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ code: display.friendly_id }),
  });
  expect(claimed.status).toBe(200);
  await claimed.body?.cancel();

  // A free user describing a Scene is refused; the plan's checkout is Stripe's page.
  await page.getByRole("link", { name: "Account" }).click();
  await expect(page.getByText("Plan: free")).toBeVisible();
  await page.getByRole("button", { name: "Upgrade yearly" }).click();
  await expect(page.getByRole("heading", { name: "Stripe Checkout" })).toBeVisible();
  expect(new URL(page.url()).host).toBe("checkout.stripe.test");

  // Paid: Stripe tells the service (signed webhooks), then sends the owner back to the console.
  const me = await (await fetch(`${billing}/auth/me`, { headers: auth })).json();
  const userId = me.id as string;
  const customer = me.subscription?.paymentCustomerId ??
    (await (await fetch(`${billing}/auth/subscription`, { headers: auth })).json())
      .paymentCustomerId;
  const { checkout } = stripeObjects(userId);
  await stripeEvent(billing, stripeWebhookSecret, "checkout.session.completed", {
    ...checkout,
    customer,
    metadata: { ...checkout.metadata, interval: "yearly" },
  });
  await page.goto(`${billing}/#/account`);
  await expect(page.getByText(/^Plan: pro, billed yearly/)).toBeVisible();
  await shots(page, "account-pro");
  await page.getByRole("button", { name: "Manage billing" }).click();
  await expect(page.getByRole("heading", { name: "Stripe Portal" })).toBeVisible();

  // Pro: the assistant makes a Scene at the panel's size from a description; it is sent.
  await page.goto(`${billing}/#/send`);
  await expect(page.getByRole("heading", { name: "Send to a display", level: 1 })).toBeVisible();
  await page.getByLabel("What the Scene shows").fill("Good morning. Dentist at 9, rain at noon.");
  await page.getByRole("button", { name: "Make Scene" }).click();
  await expect(page.getByRole("status")).toHaveText("Scene made: send it with its button", {
    timeout: 60_000,
  });
  await sceneListed(page);
  await page.getByRole("button", { name: "Send Scene 1 to display-aabbcc000042" }).click();
  await expect(page.getByRole("status")).toContainText("Sent", { timeout: 60_000 });
  const poll = await (await fetch(`${billing}/api/display`, {
    headers: { "access-token": display.api_key },
  })).json();
  expect(poll.image_url).toContain("/api/display/image/");
  // What the panel gets, kept beside the screenshots to be looked at.
  const picture = new Uint8Array(await (await fetch(poll.image_url)).arrayBuffer());
  writeFileSync(shot("console-scene-on-display"), picture);
  await shots(page, "send-pro");
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
