/**
 * The link fetcher against a local HTTP server. With the production policy every local address
 * is refused before a connection is made; the other tests widen the policy to 127.0.0.1 only
 * (the constructor option production never passes) to check redirects, caps and the deadline.
 */
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { checkLinkSyntax, LinkFetcher } from "./fetch_link.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

/** A local server counting its requests; `routes` answer by path. */
function serve(routes: Record<string, (req: Request) => Response | Promise<Response>>) {
  const hits: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const path = new URL(req.url).pathname;
    hits.push(path);
    return (routes[path] ?? (() => new Response("nope", { status: 404 })))(req);
  });
  return { hits, port: server.addr.port, close: () => server.shutdown() };
}

/** A fetcher allowed to reach 127.0.0.1 alone, resolving `*.test` names there. */
function widened(extra: Partial<ConstructorParameters<typeof LinkFetcher>[0]> = {}) {
  return new LinkFetcher({
    allowAddress: (address) => address === "127.0.0.1",
    resolve: (name) =>
      Promise.resolve(
        name.endsWith(".test")
          ? ["127.0.0.1"]
          : name === "mixed.example"
          ? ["127.0.0.1", "10.0.0.1"]
          : [],
      ),
    ...extra,
  });
}

Deno.test({
  name: "the production policy refuses local addresses before connecting",
  ...options,
  fn: async () => {
    const server = serve({ "/": () => new Response("secret") });
    try {
      const fetcher = new LinkFetcher({
        // A name that resolves to a private address is refused like a literal one.
        resolve: (name) =>
          Promise.resolve(name === "internal.example" ? ["10.1.2.3"] : ["8.8.8.8", "127.0.0.1"]),
      });
      const links = [
        `http://127.0.0.1:${server.port}/`,
        `http://localhost:${server.port}/`,
        `http://LOCALHOST.:${server.port}/`,
        `http://[::1]:${server.port}/`,
        `http://[::ffff:127.0.0.1]:${server.port}/`,
        `http://0x7f.1:${server.port}/`,
        `http://2130706433:${server.port}/`,
        "http://169.254.169.254/latest/meta-data/",
        "http://internal.example/",
        "http://rebind.example/",
        "http://intranet/",
      ];
      for (const link of links) {
        const result = await fetcher.fetch(link);
        assertEquals(result.ok, false, link);
        if (!result.ok) {
          assertEquals([result.code, result.transient], ["link_refused", false], link);
          assert.match(result.message, /not on the public internet/);
        }
      }
      assertEquals(server.hits, []);
    } finally {
      await server.close();
    }
  },
});

Deno.test("link syntax: http and https only, a host, no credentials", () => {
  assertEquals(checkLinkSyntax("https://example.com/a?b=c"), null);
  assert.match(checkLinkSyntax("ftp://example.com/")!, /scheme ftp is not allowed/);
  assert.match(checkLinkSyntax("file:///etc/passwd")!, /scheme file/);
  assert.match(checkLinkSyntax("javascript:alert(1)")!, /scheme javascript/);
  assert.match(checkLinkSyntax("https://user:pw@example.com/")!, /user name or password/);
  assert.match(checkLinkSyntax("not a url")!, /is not a URL/);
});

Deno.test({
  name: "a page, a chunked body and a gzip body are read; relative redirects followed",
  ...options,
  fn: async () => {
    const gzip = new Response(
      new Blob(["<title>Zipped</title>"]).stream().pipeThrough(new CompressionStream("gzip")),
    );
    const zipped = new Uint8Array(await gzip.arrayBuffer());
    const server = serve({
      "/page": () =>
        new Response("<title>Hi</title>", {
          headers: { "content-type": "text/html; charset=utf-8" },
        }),
      "/chunked": () =>
        new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode("one,"));
              c.enqueue(new TextEncoder().encode("two"));
              c.close();
            },
          }),
          { headers: { "content-type": "text/plain" } },
        ),
      "/gzip": () =>
        new Response(zipped, {
          headers: { "content-type": "text/html", "content-encoding": "gzip" },
        }),
      "/hop": () => new Response(null, { status: 302, headers: { location: "/page" } }),
    });
    try {
      const fetcher = widened();
      const page = await fetcher.fetch(`http://pages.test:${server.port}/page`);
      assert.ok(page.ok);
      if (page.ok) {
        assertEquals([page.mediaType, page.charset], ["text/html", "utf-8"]);
        assertEquals(new TextDecoder().decode(page.body), "<title>Hi</title>");
      }
      const chunked = await fetcher.fetch(`http://127.0.0.1:${server.port}/chunked`);
      assert.ok(chunked.ok && new TextDecoder().decode(chunked.body) === "one,two");
      const unzipped = await fetcher.fetch(`http://127.0.0.1:${server.port}/gzip`);
      assert.ok(unzipped.ok && new TextDecoder().decode(unzipped.body) === "<title>Zipped</title>");
      const hopped = await fetcher.fetch(`http://127.0.0.1:${server.port}/hop`);
      assert.ok(hopped.ok && hopped.url === `http://127.0.0.1:${server.port}/page`);
    } finally {
      await server.close();
    }
  },
});

Deno.test({
  name: "every redirect hop is judged again, and hops are capped at three",
  ...options,
  fn: async () => {
    const server = serve({
      "/to-private": () =>
        new Response(null, { status: 301, headers: { location: "http://10.0.0.1/" } }),
      "/to-localhost": () =>
        new Response(null, { status: 307, headers: { location: "http://localhost/" } }),
      "/to-mixed": () =>
        new Response(null, { status: 302, headers: { location: "http://mixed.example/" } }),
      "/to-file": () =>
        new Response(null, { status: 302, headers: { location: "file:///etc/passwd" } }),
      "/loop": () => new Response(null, { status: 302, headers: { location: "/loop" } }),
    });
    try {
      const fetcher = widened();
      for (const path of ["/to-private", "/to-localhost", "/to-mixed", "/to-file", "/loop"]) {
        const result = await fetcher.fetch(`http://127.0.0.1:${server.port}${path}`);
        assert.ok(
          !result.ok && result.code === "link_refused",
          `${path}: ${JSON.stringify(result)}`,
        );
      }
      // The loop was followed three times, then refused.
      assertEquals(server.hits.filter((p) => p === "/loop").length, 4);
    } finally {
      await server.close();
    }
  },
});

Deno.test({
  name: "2 MiB cap: declared, streamed and inflated bodies over it are refused",
  ...options,
  fn: async () => {
    const big = new Uint8Array(2 * 1024 * 1024 + 1);
    const bomb = new Uint8Array(
      await new Response(
        new Blob([new Uint8Array(8 * 1024 * 1024)]).stream().pipeThrough(
          new CompressionStream("gzip"),
        ),
      ).arrayBuffer(),
    );
    const server = serve({
      "/declared": () => new Response(big),
      "/streamed": () =>
        new Response(
          new ReadableStream({
            start(c) {
              for (let i = 0; i < 40; i++) c.enqueue(new Uint8Array(64 * 1024));
              c.close();
            },
          }),
        ),
      "/bomb": () => new Response(bomb, { headers: { "content-encoding": "gzip" } }),
      "/exact": () => new Response(big.subarray(1)),
    });
    try {
      const fetcher = widened();
      for (const path of ["/declared", "/streamed", "/bomb"]) {
        const result = await fetcher.fetch(`http://127.0.0.1:${server.port}${path}`);
        assert.ok(
          !result.ok && result.code === "link_too_large",
          `${path}: ${JSON.stringify(result)}`,
        );
      }
      const exact = await fetcher.fetch(`http://127.0.0.1:${server.port}/exact`);
      assert.ok(exact.ok && exact.body.length === 2 * 1024 * 1024);
    } finally {
      await server.close();
    }
  },
});

Deno.test({
  name: "the deadline ends a stalled answer; 404 is permanent, 503 transient",
  ...options,
  fn: async () => {
    let release = () => {};
    const stalled = new Promise<void>((resolve) => release = resolve);
    const server = serve({
      "/stall": async () => {
        await stalled;
        return new Response("late");
      },
      "/busy": () => new Response("busy", { status: 503 }),
    });
    try {
      const fetcher = widened({ timeoutMs: 300 });
      const started = performance.now();
      const slow = await fetcher.fetch(`http://127.0.0.1:${server.port}/stall`);
      assert.ok(performance.now() - started < 2000);
      assert.ok(!slow.ok && slow.code === "link_unreachable" && slow.transient);
      const missing = await fetcher.fetch(`http://127.0.0.1:${server.port}/missing`);
      assert.ok(!missing.ok && missing.code === "link_failed" && !missing.transient);
      const busy = await fetcher.fetch(`http://127.0.0.1:${server.port}/busy`);
      assert.ok(!busy.ok && busy.code === "link_failed" && busy.transient);
      const closed = await fetcher.fetch("http://127.0.0.1:1/");
      assert.ok(!closed.ok && closed.code === "link_unreachable");
    } finally {
      release();
      await server.close();
    }
  },
});
