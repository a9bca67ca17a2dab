/**
 * The baseline of the `/health`-under-load benchmark (bench/content.ts): a bare `Deno.serve`
 * answering `{"status":"ok"}`, beside worker threads that keep every core busy as a saturated
 * render pool does (tasks of ~10 ms, at the render workers' lower priority). Whatever the probe
 * then measures is what this machine's scheduler costs any event loop, before the service adds
 * anything.
 *
 * `deno run -A bench/bare_busy.ts <port> <threads>`; `POST /busy` starts the load, `DELETE /busy`
 * stops it, any other request is the health answer.
 */
const [port, threads] = Deno.args.map(Number);

const workers = Array.from(
  { length: threads },
  () => new Worker(new URL("./bare_busy_worker.ts", import.meta.url), { type: "module" }),
);

Deno.serve({ port, hostname: "127.0.0.1", onListen() {} }, (req) => {
  if (new URL(req.url).pathname === "/busy") {
    for (const worker of workers) worker.postMessage(req.method === "POST");
    return new Response(null, { status: 204 });
  }
  return Response.json({ status: "ok" });
});
