/**
 * `deno task bench`: every benchmark, printed as one table. Set DATABASE_URL to measure against
 * a real PostgreSQL instead of the embedded PGlite.
 */
import { benchAuth } from "./auth.ts";
import { benchBilling } from "./billing.ts";
import { benchRender } from "./render.ts";
import { benchScene } from "./scene.ts";
import { benchFairness } from "./fairness.ts";
import { benchRenderFairness } from "./render_fairness.ts";
import { benchTemplates } from "./templates.ts";
import { benchPush } from "./push.ts";
import { benchContent } from "./content.ts";
import { benchBurst } from "./burst.ts";
import { benchTargetless } from "./targetless.ts";
import { benchFleet } from "./fleet.ts";
import { benchMcp } from "./mcp.ts";
import { benchDisplayPoll } from "./display_poll.ts";
import { benchWebhooks } from "./webhooks.ts";
import { benchPlaylists } from "./playlists.ts";
import { benchWebhookFairness } from "./webhook_fairness.ts";
import { benchRest } from "./rest.ts";
import { benchSaturated } from "./saturated.ts";
import { benchHtmlScreens } from "./html_screens.ts";
import { benchHttp } from "./http.ts";
import { type BenchRow, hasWrk, printTable } from "./lib.ts";
import { Progress } from "../src/infra/lib/progress.ts";
import { helpAndExit } from "../src/infra/lib/usage.ts";

helpAndExit(
  Deno.args,
  `Usage: deno task bench

Runs every benchmark (auth, billing, render, templates, scene, html screens, fairness,
render-fairness, targetless, push, burst, fleet, display, webhooks, playlists, webhook fairness,
rest, saturated, http, content, mcp)
and prints one table; progress lines on stderr. DATABASE_URL measures on a real PostgreSQL, MQTT_URL runs the fleet on that broker. The
content, rest (its cold tail), saturated and http benchmarks need wrk; http runs on PostgreSQL only.
Takes minutes and all the machine's cores.`,
);

const databaseUrl = Deno.env.get("DATABASE_URL");
const env: Record<string, string> = databaseUrl ? { DATABASE_URL: databaseUrl } : {};
const steps: Array<[string, () => Promise<BenchRow[]>]> = [
  ["auth", () => benchAuth(env)],
  ["billing", () => benchBilling(env)],
  ["render", () => benchRender()],
  ["templates", () => benchTemplates()],
  ["scene", () => benchScene()],
  ["html screens", () => benchHtmlScreens()],
  ["fairness", () => benchFairness()],
  ["render-fairness", () => benchRenderFairness({ databaseUrl })],
  ["targetless", () => benchTargetless({ databaseUrl })],
  ["push", () => benchPush({ databaseUrl })],
  ["burst", () => benchBurst({ databaseUrl })],
  ["fleet", () => benchFleet({ databaseUrl, mqttUrl: Deno.env.get("MQTT_URL") })],
  ["display", () => benchDisplayPoll({ databaseUrl })],
  ["webhooks", () => benchWebhooks({ databaseUrl })],
  ["playlists", () => benchPlaylists({ databaseUrl })],
  ["webhook fairness", () => benchWebhookFairness({ databaseUrl })],
  ["rest", () => benchRest({ databaseUrl, mqttUrl: Deno.env.get("MQTT_URL") })],
  ["saturated", () => benchSaturated({ databaseUrl })],
  // The device path beside a bare Deno.serve, fleets included (issue 40): PostgreSQL and wrk.
  ["http", async () => databaseUrl && await hasWrk() ? await benchHttp({ databaseUrl }) : []],
  ["content", () => benchContent(env)],
  ["mcp", () => benchMcp(env)],
];
// A line per benchmark on stderr (counts, ETA); the table alone on stdout.
const progress = new Progress("bench", { total: steps.length });
const rows: BenchRow[] = [];
for (const [name, run] of steps) {
  const measured = await run();
  rows.push(...measured);
  progress.step(`${name}: ${measured.length} rows`);
}
progress.finish();
printTable(rows);
// The push benchmark runs the service in this process; its pools and timers end with it.
Deno.exit(0);
