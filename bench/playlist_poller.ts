/**
 * The playlist benchmark's displays, in a process of their own (a display is never in the
 * service's process, and a poll due while the service's loop is busy must count the wait):
 * each display in stdin's JSON (`[{mac, key}]`) polls `GET /api/display` once, spread evenly over
 * `seconds`. Prints `[[start ms, duration ms], …]` as JSON, in the displays' order.
 * Usage: `deno run -A bench/playlist_poller.ts <service origin> <seconds> < displays.json`.
 */
const [origin, seconds] = Deno.args;
const displays: { mac: string; key: string }[] = JSON.parse(
  await new Response(Deno.stdin.readable).text(),
);
const span = Number(seconds) * 1000;
const started = performance.now();
const times = await Promise.all(displays.map(async (d, i) => {
  const due = started + (i / displays.length) * span;
  await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
  const start = performance.now();
  const res = await fetch(`${origin}/api/display`, {
    headers: { ID: d.mac, "Access-Token": d.key, Model: "og" },
  });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`poll ${res.status}`);
  return [Math.round(start - started), performance.now() - start];
}));
console.log(JSON.stringify(times));
