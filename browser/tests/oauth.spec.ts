import { expect, test } from "@playwright/test";
import { shot, world } from "../world.ts";

test("Google web sign-in through the local provider ends on the web callback, tokens in the fragment", async ({ page }) => {
  const { url, portal } = world();
  // start → the provider's consent (at once) → the service's callback with the browser's
  // cookie → the web app's /auth/callback with the tokens in the fragment.
  await page.goto(`${url}/auth/oauth/google?client=web`);
  await page.waitForURL(`${portal}/auth/callback#*`);
  const landed = new URL(page.url());
  expect(landed.search).toBe("");
  const fragment = new URLSearchParams(landed.hash.slice(1));
  expect(fragment.get("accessToken")).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  expect(fragment.get("refreshToken")).toBeTruthy();
  await expect(page.locator("#fragment")).toContainText("accessToken=");
  await page.screenshot({ path: shot("oauth-web-callback") });
  // The token works.
  const me = await fetch(`${url}/auth/me`, {
    headers: { authorization: `Bearer ${fragment.get("accessToken")}` },
  });
  expect(me.status).toBe(200);
  expect((await me.json()).email).toBe("browser@example.com");
});
