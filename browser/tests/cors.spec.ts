import { expect, test } from "@playwright/test";
import { shot, world } from "../world.ts";

test("CORS: the portal origin calls the API cross-origin and reads X-Renewed-Token", async ({ page }) => {
  const { url, portal, accessToken } = world();
  await page.goto(`${portal}/cors.html?api=${encodeURIComponent(url)}&token=${accessToken}`);
  await expect(page.locator("#result")).toContainText("status");
  const result = JSON.parse(await page.locator("#result").textContent() ?? "{}");
  expect(result.status).toBe(200);
  expect(result.username).toBe("ada");
  expect(result.renewed).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  await page.screenshot({ path: shot("cors-portal") });
});

test("CORS: another origin's fetch is refused by the browser", async ({ page }) => {
  const { url, other, accessToken } = world();
  await page.goto(`${other}/cors.html?api=${encodeURIComponent(url)}&token=${accessToken}`);
  await expect(page.locator("#result")).toContainText("blocked");
  const result = JSON.parse(await page.locator("#result").textContent() ?? "{}");
  expect(result.blocked).toMatch(/Failed to fetch/);
  await page.screenshot({ path: shot("cors-other-origin") });
});
