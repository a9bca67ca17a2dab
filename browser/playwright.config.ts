/**
 * `deno task test:browser`: Playwright (@playwright/test, run by Deno) against the started
 * service in Debian's Chromium (`apt-get install chromium`): a browser a test tool downloads
 * itself cannot be fetched here. Headless, no sandbox (CI runs as root), background networking
 * off. Screenshots and the results file go to `browser/artifacts/` (git-ignored).
 */
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: "./tests",
  globalSetup: "./global_setup.ts",
  outputDir: "./artifacts/results",
  // One worker: the machine has 2 cores and the service under test uses both.
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [["list"], ["json", { outputFile: "./artifacts/results.json" }]],
  use: {
    headless: true,
    viewport: { width: 1280, height: 900 },
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-background-networking", "--disable-dev-shm-usage"],
    },
  },
});
