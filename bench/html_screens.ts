/**
 * HTML screens (plugins): the first render after start (Chromium's launch included), warm renders
 * one at a time (p50/p95 of the whole draw: page, screenshot, region dithering and packing in the
 * render pool) at 800x480 1-bit and a TRMNL X's 1872x1404 4-bit, and Chromium's resident memory
 * (its whole process tree, from /proc) at rest after the renders, at its peak under a burst of
 * 20 renders, and once its prepared contexts idled out. Markup: the weather and photo fixtures of src/infra/html/testdata/.
 * Run alone: `deno task bench:html`.
 */
import { SPARE_IDLE_MS } from "../src/infra/html/browser.ts";
import { HtmlScreens } from "../src/infra/html/screens.ts";
import { createRenderPool } from "../src/infra/render/pool.ts";
import type { PanelSpec } from "../src/infra/render/types.ts";
import { type BenchRow, printTable } from "./lib.ts";
import { helpAndExit } from "../src/infra/lib/usage.ts";

const FIXTURES = new URL("../src/infra/html/testdata/", import.meta.url);
const round = (value: number, digits = 0) => Number(value.toFixed(digits));

/**
 * The memory of this process's descendants (Chromium's tree), in MiB: `rss` the sum of their
 * resident sizes (shared libraries counted once per process, so an overestimate), `pss` the sum
 * of their proportional shares (shared pages split between the processes sharing them).
 */
export async function treeMemoryMiB(root = Deno.pid): Promise<{ rss: number; pss: number }> {
  const parents = new Map<number, number>();
  for await (const entry of Deno.readDir("/proc")) {
    const pid = Number(entry.name);
    if (!Number.isInteger(pid)) continue;
    try {
      const status = await Deno.readTextFile(`/proc/${pid}/status`);
      parents.set(pid, Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0));
    } catch {
      // The process ended meanwhile.
    }
  }
  const inTree = (pid: number): boolean => {
    for (let p = parents.get(pid); p; p = parents.get(p)) if (p === root) return true;
    return false;
  };
  let rss = 0;
  let pss = 0;
  for (const pid of parents.keys()) {
    if (!inTree(pid)) continue;
    try {
      const rollup = await Deno.readTextFile(`/proc/${pid}/smaps_rollup`);
      rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // The process ended meanwhile.
    }
  }
  return { rss: rss / 1024, pss: pss / 1024 };
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

export async function benchHtmlScreens(runs = 20): Promise<BenchRow[]> {
  const markup = {
    weather: await Deno.readTextFile(new URL("weather.html", FIXTURES)),
    photo: await Deno.readTextFile(new URL("photo.html", FIXTURES)),
  };
  const pool = await createRenderPool();
  const screens = new HtmlScreens({ renderer: pool, chromiumPath: Deno.env.get("CHROMIUM_PATH") });
  const small: PanelSpec = { width: 800, height: 480, bitDepth: 1 };
  const large: PanelSpec = { width: 1872, height: 1404, bitDepth: 4 };
  const rows: BenchRow[] = [];
  try {
    // The baseline of the same run: a push template drawn by the render pool alone (satori and
    // resvg, no browser), for the same 800x480 1-bit panel.
    const baseline: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await pool.renderTemplate({
        name: "note",
        variables: { title: "Living room", body: "21.5° · 48% · 1,130 ppm" },
        panel: small,
      });
      baseline.push(performance.now() - t0);
    }
    rows.push({
      name: "baseline: push template (no browser) 800x480 1-bit p50",
      value: round(percentile(baseline, 0.5)),
      unit: "ms",
    });
    let started = performance.now();
    await screens.draw({ content: { markup: markup.weather }, panel: small });
    rows.push({
      name: "html screens: first render after start (launch)",
      value: round(performance.now() - started),
      unit: "ms",
    });
    for (const [label, panel] of [["800x480 1-bit", small], ["1872x1404 4-bit", large]] as const) {
      for (const [name, html] of Object.entries(markup)) {
        const samples: number[] = [];
        for (let i = 0; i < runs; i++) {
          started = performance.now();
          await screens.draw({ content: { markup: html }, panel });
          samples.push(performance.now() - started);
        }
        rows.push(
          {
            name: `html screens: ${name} ${label} p50`,
            value: round(percentile(samples, 0.5)),
            unit: "ms",
          },
          {
            name: `html screens: ${name} ${label} p95`,
            value: round(percentile(samples, 0.95)),
            unit: "ms",
          },
          {
            name: `html screens: ${name} ${label} p99`,
            value: round(percentile(samples, 0.99)),
            unit: "ms",
          },
        );
      }
    }
    // Settled: the renders' contexts are gone.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const rest = await treeMemoryMiB();
    rows.push(
      { name: "html screens: Chromium at rest, sum of RSS", value: round(rest.rss), unit: "MiB" },
      { name: "html screens: Chromium at rest, sum of PSS", value: round(rest.pss), unit: "MiB" },
    );
    const peak = { rss: 0, pss: 0 };
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const now = await treeMemoryMiB();
        peak.rss = Math.max(peak.rss, now.rss);
        peak.pss = Math.max(peak.pss, now.pss);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    started = performance.now();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        screens.draw({
          content: { markup: i % 2 ? markup.photo : markup.weather },
          panel: i % 4 < 2 ? small : large,
        })),
    );
    const burstMs = performance.now() - started;
    sampling = false;
    await sampler;
    rows.push(
      {
        name: "html screens: burst of 20 (mixed sizes), wall time",
        value: round(burstMs),
        unit: "ms",
      },
      {
        name: "html screens: Chromium burst peak, sum of RSS",
        value: round(peak.rss),
        unit: "MiB",
      },
      {
        name: "html screens: Chromium burst peak, sum of PSS",
        value: round(peak.pss),
        unit: "MiB",
      },
    );
    // Nothing draws: the prepared contexts are closed (the browser itself after 5 minutes).
    await new Promise((resolve) => setTimeout(resolve, SPARE_IDLE_MS + 2000));
    const idle = await treeMemoryMiB();
    rows.push({
      name: `html screens: Chromium idle ${SPARE_IDLE_MS / 1000 + 2} s, sum of PSS`,
      value: round(idle.pss),
      unit: "MiB",
    });
  } finally {
    await screens.close();
    await pool.close();
  }
  return rows;
}

if (import.meta.main) {
  helpAndExit(
    Deno.args,
    `Usage: deno task bench:html

HTML screens: the first render (Chromium's launch), warm renders at 800x480 1-bit and 1872x1404
4-bit (p50, p95), and Chromium's memory at rest and at the peak of a burst of 20 renders. Needs
a Chromium (CHROMIUM_PATH, a system one, or the npm package's); not part of deno task bench.`,
  );
  printTable(await benchHtmlScreens());
}
