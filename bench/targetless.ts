/**
 * Targetless renditions through the whole service (issue 11): `POST .../renditions` until the
 * presentation shows the PNG ready, on a started service (HTTP, the rendition queue, the render
 * pool, the store). One request at a time (the latency a widget waits for a new size), and 16
 * sizes asked at once (renditions per second through the queue). The Scene is the offline
 * model's layout of a title, a text and a photo (bench/scene.ts measures the pool alone).
 * Run alone: `deno run -A bench/targetless.ts`.
 */
import { benchPhoto } from "./photo.ts";
import { type BenchRow, median, printTable, registerBenchUser } from "./lib.ts";
import { startTestServer } from "../tests/helpers/server.ts";
import { runAdmin } from "../src/admin.ts";

const round = (value: number) => Number(value.toFixed(1));

/** Runs the targetless benchmark and returns its rows. */
export async function benchTargetless(
  options: { runs?: number; databaseUrl?: string } = {},
): Promise<BenchRow[]> {
  const runs = options.runs ?? 8;
  Deno.env.set("NODE_ENV", "production");
  // Room for every size this benchmark asks for, and for 16 at once.
  const server = await startTestServer({
    TARGETLESS_MAX_RENDITIONS_PER_PRESENTATION: "64",
    TARGETLESS_MAX_CONCURRENT_RENDITIONS: "16",
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
  });
  const engine = server.env.DATABASE_URL ? "PostgreSQL" : "PGlite";
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return await res.json();
  };
  try {
    const reg = await registerBenchUser(server.url);
    await runAdmin(server.app.services.db, ["set-plan", "bench", "pro"]);
    const token = reg.accessToken as string;
    const jpeg = await benchPhoto();
    const content = await call("POST", "/api/app/v1/contents", token, {
      mode: "auto",
      title: "Weekend at the lake",
      output: { preset: "default" },
      assets: [
        { type: "text", text: "Hike around the lake on Saturday morning, then lunch at the hut." },
        { type: "image", contentType: "image/jpeg", sizeBytes: jpeg.length },
      ],
    });
    const ticket = content.assets[1].upload;
    const form = new FormData();
    for (const [k, v] of Object.entries(ticket.fields)) form.append(k, v as string);
    form.append("file", new Blob([jpeg.slice()], { type: "image/jpeg" }), "photo.jpg");
    await (await fetch(ticket.url, { method: "POST", body: form })).body?.cancel();
    await call("POST", `/api/app/v1/contents/${content.id}/confirm`, token);
    const until = async (check: () => Promise<boolean>) => {
      while (!(await check())) await new Promise((r) => setTimeout(r, 5));
    };
    let presentationId = "";
    await until(async () => {
      const c = await call("GET", `/api/app/v1/contents/${content.id}`, token);
      presentationId = c.presentationIds?.[0] ?? "";
      return c.state === "ready";
    });
    const path = `/api/app/v1/presentations/${presentationId}`;
    const ready = async (ids: string[]) => {
      const p = await call("GET", path, token);
      return ids.every((id) =>
        p.renditions.find((r: { id: string }) => r.id === id)?.state !== "preparing"
      );
    };
    const rows: BenchRow[] = [];
    for (const [w, h] of [[800, 480], [2000, 2000]]) {
      const samples: number[] = [];
      for (let i = 0; i < runs + 1; i++) {
        const start = performance.now();
        // A new size each time (the same one would be a dedup hit).
        const r = await call("POST", `${path}/renditions`, token, { width: w - i, height: h - i });
        await until(() => ready([r.id]));
        if (i > 0) samples.push(performance.now() - start);
      }
      rows.push({
        name: `targetless: rendition ${w}x${h} requested to ready, one at a time (${engine})`,
        value: round(median(samples)),
        unit: "ms",
      });
    }
    const start = performance.now();
    const burst = await Promise.all(
      Array.from(
        { length: 16 },
        (_, i) => call("POST", `${path}/renditions`, token, { width: 700 - i, height: 420 }),
      ),
    );
    const accepted = burst.filter((r) => r.id).map((r) => r.id as string);
    await until(() => ready(accepted));
    rows.push({
      name:
        `targetless: ~800x480 renditions through the queue, ${accepted.length} at once (${engine})`,
      value: round(accepted.length / ((performance.now() - start) / 1000)),
      unit: "renditions/s",
    });
    return rows;
  } finally {
    await server.close();
  }
}

if (import.meta.main) {
  printTable(await benchTargetless({ databaseUrl: Deno.env.get("DATABASE_URL") }));
  Deno.exit(0);
}
