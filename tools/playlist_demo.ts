/**
 * `deno task device-sim --trmnl --playlist-demo --token <access token or PAT> [--api url]
 * [--seconds 60] [--out dir]` (issue 37): a display on a playlist, end to end against a running
 * service. It sets up a TRMNL display (its MAC), claims it with the token, makes a webhook plugin,
 * a static one and a playlist of both and a mashup of both (5 s items), runs the playlist on the
 * display, posts new data to the webhook halfway, and polls `GET /api/display` at each answered
 * `refresh_rate` for `--seconds`, writing each new picture into `--out` and one line per poll.
 */
import { randomMac } from "./trmnl_sim.ts";

const MARKUP = '<div class="layout layout--col"><span class="value value--xlarge">{{ word }}' +
  '</span><span class="label">{{ note }}</span></div>';

export interface PlaylistDemoOptions {
  api: string;
  token: string;
  seconds: number;
  outDir: string;
  log?: (line: string) => void;
}

export async function runPlaylistDemo(options: PlaylistDemoOptions): Promise<string[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const api = options.api.replace(/\/+$/, "");
  const auth = { authorization: `Bearer ${options.token}`, "content-type": "application/json" };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: auth,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const reply = await res.json().catch(() => null);
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(reply)}`);
    return reply;
  };
  await Deno.mkdir(options.outDir, { recursive: true });
  const mac = randomMac();
  const setup = await (await fetch(`${api}/api/setup`, { headers: { ID: mac, Model: "og" } }))
    .json();
  const { device } = await call("POST", "/api/devices/claim", { code: setup.friendly_id });
  log(`display ${mac} claimed as device ${device.id}`);
  const markup = { full: MARKUP, halfVertical: MARKUP };
  const webhook = await call("POST", "/api/plugins", {
    name: "Demo webhook",
    strategy: "webhook",
    markup,
  });
  const post = (word: string) =>
    fetch(webhook.webhookUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ merge_variables: { word, note: "from the webhook" } }),
    }).then((res) => res.body?.cancel());
  await post("21.5°");
  const fixed = await call("POST", "/api/plugins", {
    name: "Demo static",
    strategy: "static",
    markup,
    staticData: { word: "Hello", note: "static data" },
  });
  const playlist = await call("POST", "/api/playlists", {
    name: "Demo",
    items: [
      { pluginId: webhook.id, durationSeconds: 5 },
      { pluginId: fixed.id, durationSeconds: 5 },
      { mashup: { layout: "1Lx1R", pluginIds: [webhook.id, fixed.id] }, durationSeconds: 5 },
    ],
  });
  await call("PUT", `/api/devices/${device.id}/playlist`, { playlistId: playlist.id });
  log(`playlist ${playlist.id} runs on it: webhook, static, mashup, 5 s each`);
  const lines: string[] = [];
  const started = Date.now();
  let posted = false;
  let last = "";
  while (Date.now() - started < options.seconds * 1000) {
    const res = await fetch(`${api}/api/display`, {
      headers: { ID: mac, "Access-Token": setup.api_key, Model: "og" },
    });
    const body = await res.json();
    const at = ((Date.now() - started) / 1000).toFixed(1);
    const history = await call("GET", `/api/devices/${device.id}/pushes?limit=1`);
    const title = history.items[0]?.title ?? "nothing yet";
    const changed = body.filename !== last;
    if (changed && body.image_url) {
      const png = new Uint8Array(await (await fetch(body.image_url)).arrayBuffer());
      await Deno.writeFile(`${options.outDir}/${at.padStart(6, "0")}s.png`, png);
      last = body.filename;
    }
    const line = `${at}s: ${changed ? "new picture" : "same picture"} ` +
      `${
        String(body.filename).slice(0, 12)
      } (latest push: ${title}), refresh_rate ${body.refresh_rate}`;
    lines.push(line);
    log(line);
    if (!posted && Date.now() - started > options.seconds * 500) {
      posted = true;
      await post("23.0°");
      log(`${at}s: posted new data to the webhook plugin`);
    }
    await new Promise((r) => setTimeout(r, Math.min(body.refresh_rate ?? 5, 5) * 1000));
  }
  await call("PUT", `/api/devices/${device.id}/playlist`, { playlistId: null });
  return lines;
}
