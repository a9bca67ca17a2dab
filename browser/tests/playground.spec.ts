import { expect, test } from "@playwright/test";
import { shot, world } from "../world.ts";

test("the playground renders a pasted Scene and shows the validation error of a broken one", async ({ page }) => {
  const { url, accessToken } = world();
  await page.goto(`${url}/playground`);
  await page.locator("#token").fill(accessToken);
  await expect(page.locator("#scene")).toHaveValue(/"mediaType"/);
  await page.locator("#render-scene").click();
  const image = page.locator("#scene-image");
  await expect(image).toBeVisible();
  await expect.poll(() =>
    image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)
  ).toBe(480);
  await expect(page.locator("#scene-error")).toBeHidden();
  await page.screenshot({ path: shot("playground-scene"), fullPage: true });

  // A text element without its text: the normaliser's message, inline.
  const broken = JSON.parse(await page.locator("#scene").inputValue());
  delete broken.data.elements[1].properties.text;
  await page.locator("#scene").fill(JSON.stringify(broken, null, 2));
  await page.locator("#render-scene").click();
  await expect(page.locator("#scene-error")).toBeVisible();
  await expect(page.locator("#scene-error")).toHaveText(
    "400: invalid_request: Scene elements[1].properties.text is required",
  );
  await page.screenshot({ path: shot("playground-scene-error"), fullPage: true });
});

test("the playground renders a push template's 1-bit image from its variables (with a PAT)", async ({ page }) => {
  const { url, pat } = world();
  await page.goto(`${url}/playground`);
  await page.locator("#token").fill(pat);
  await page.locator("#tab-template").click();
  await page.locator("#template").selectOption("note");
  await expect(page.locator("#variables")).toHaveValue(/"body"/);
  await page.locator("#render-template").click();
  const image = page.locator("#template-image");
  await expect(image).toBeVisible();
  await expect.poll(() =>
    image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)
  ).toBe(800);
  await page.locator("#variables").fill('{"title": "No body"}');
  await page.locator("#render-template").click();
  await expect(page.locator("#template-error")).toContainText("Variable body is required");
  await page.screenshot({ path: shot("playground-template"), fullPage: true });
});
