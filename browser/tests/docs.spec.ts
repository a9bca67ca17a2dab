import { expect, test } from "@playwright/test";
import { shot, world } from "../world.ts";

test("/docs renders the operations and a Try it out call of GET /health succeeds", async ({ page }) => {
  const { url } = world();
  await page.goto(`${url}/docs`);
  await expect(page.locator(".opblock-summary-path", { hasText: "/auth/register" })).toBeVisible();
  await expect(page.locator(".opblock-tag", { hasText: "devices" }).first()).toBeVisible();
  // The bearer schemes are offered in Authorize.
  await page.getByRole("button", { name: "Authorize" }).first().click();
  await expect(page.getByText("userAccessToken", { exact: false }).first()).toBeVisible();
  await expect(page.getByText("personalAccessToken", { exact: false }).first()).toBeVisible();
  await page.getByRole("button", { name: "Close" }).first().click();

  const health = page.locator("#operations-system-system-health");
  await health.locator(".opblock-summary").click();
  await health.getByRole("button", { name: "Try it out" }).click();
  await health.getByRole("button", { name: "Execute" }).click();
  const live = health.locator(".live-responses-table");
  await expect(live.locator("tr.response .response-col_status")).toHaveText("200");
  await expect(live.locator("tr.response .response-col_description")).toContainText(
    '"status": "ok"',
  );
  await health.scrollIntoViewIfNeeded();
  await page.screenshot({ path: shot("docs-try-health"), fullPage: false });
});

test("/docs 'Try it out' sends the pasted bearer token", async ({ page }) => {
  const { url, accessToken } = world();
  await page.goto(`${url}/docs`);
  await page.getByRole("button", { name: "Authorize" }).first().click();
  const dialog = page.locator(".auth-container", { hasText: "userAccessToken" });
  await dialog.locator("input").fill(accessToken);
  // Swagger UI labels the dialog's button "Apply credentials".
  await dialog.locator("button.authorize").click();
  await page.getByRole("button", { name: "Close" }).first().click();
  const me = page.locator("#operations-accounts-accounts-getMe");
  await me.locator(".opblock-summary").click();
  await me.getByRole("button", { name: "Try it out" }).click();
  await me.getByRole("button", { name: "Execute" }).click();
  const live = me.locator(".live-responses-table tr.response");
  await expect(live.locator(".response-col_status")).toHaveText("200");
  await expect(live.locator(".response-col_description")).toContainText('"username": "ada"');
  await page.screenshot({ path: shot("docs-try-me") });
});
