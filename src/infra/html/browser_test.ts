/**
 * The HTML screens' browser (CONTRACT.md "Screens that keep themselves current"): no request of
 * any kind leaves a page, a script looping forever ends at the deadline and the next render still
 * works, renders share nothing, broken markup still draws, and a full queue is refused as busy.
 * The pages here carry no Content-Security-Policy, so the browser's own walls are what is tested.
 */
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { decode } from "fast-png";
import { HtmlBrowser } from "./browser.ts";
import { RenderRejected, RenderUnavailable } from "../render/errors.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

/** The error `run` rejects with, checked to be a `type` whose message holds `part`. */
async function assertRejects<E extends Error>(
  run: () => Promise<unknown>,
  type: new (...args: never[]) => E,
  part = "",
): Promise<E> {
  try {
    await run();
  } catch (error) {
    assert(error instanceof type, `rejected with ${error}, not a ${type.name}`);
    assert(error.message.includes(part), `"${error.message}" does not say "${part}"`);
    return error;
  }
  throw new Error("did not reject");
}

Deno.test("a page reaches no network: loopback listener sees no request", options, async () => {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    seen.push(request.url);
    if (request.headers.get("upgrade") === "websocket") {
      return Deno.upgradeWebSocket(request).response;
    }
    return new Response("body{background:black}", { headers: { "content-type": "text/css" } });
  });
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const named = `http://localhost:${server.addr.port}`;
  const html = `<!doctype html><html><head>
    <meta http-equiv="refresh" content="0;url=${origin}/refresh">
    <link rel="stylesheet" href="${origin}/link.css">
    <link rel="preconnect" href="${origin}"><link rel="prefetch" href="${origin}/prefetch">
    <style>@import url("${origin}/import.css");
      @font-face{font-family:X;src:url(${origin}/font.woff2)} p{font-family:X}
      div{background:url(${named}/bg.png)}</style>
    <script src="${origin}/script.js"></script>
    </head><body><p>text</p><div>box</div>
    <img src="${origin}/img.png"><img src="${named}/img2.png">
    <iframe src="${origin}/frame"></iframe>
    <object data="${origin}/object"></object>
    <video src="${origin}/video.mp4" autoplay></video>
    <script>
      fetch("${origin}/fetch").catch(() => {});
      fetch("${named}/fetch2", { mode: "no-cors" }).catch(() => {});
      const xhr = new XMLHttpRequest(); xhr.open("GET", "${origin}/xhr"); xhr.send();
      try { new WebSocket("ws://127.0.0.1:${server.addr.port}/ws"); } catch {}
      try { new WebSocket("ws://localhost:${server.addr.port}/ws2"); } catch {}
      try { new EventSource("${origin}/events"); } catch {}
      navigator.sendBeacon && navigator.sendBeacon("${origin}/beacon", "x");
      new Image().src = "${origin}/image-object.png";
      location.href = "${origin}/navigate";
    </script></body></html>`;
  const browser = new HtmlBrowser();
  try {
    const { png } = await browser.capture({ html, width: 200, height: 100 });
    assertEquals(decode(png).width, 200);
    // Anything started late (a retry, a redirect) has time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assertEquals(seen, []);
  } finally {
    await browser.close();
    await server.shutdown();
  }
});

Deno.test(
  "a script looping forever ends at the deadline; the next render works",
  options,
  async () => {
    const browser = new HtmlBrowser();
    try {
      // Launched first, so the deadline measures the page alone.
      await browser.describe();
      const started = performance.now();
      const html = "<p>x</p><script>while(true){}</script>";
      const error = await assertRejects(
        () => browser.capture({ html, width: 80, height: 40, deadlineMs: 2000 }),
        RenderRejected,
      );
      assertEquals(error.code, "timed_out");
      assert(performance.now() - started < 8000, "the render ended near its deadline");
      const { png } = await browser.capture({ html: "<p>after</p>", width: 80, height: 40 });
      assertEquals(decode(png).height, 40);
    } finally {
      await browser.close();
    }
  },
);

Deno.test(
  "renders share no storage: localStorage and cookies of one are absent in the next",
  options,
  async () => {
    const browser = new HtmlBrowser();
    const read = `<script>document.title = [localStorage.getItem("k"), sessionStorage.getItem("k"),
    document.cookie].join("|")</script><div id=o></div>
    <script>document.getElementById("o").style.cssText =
      "width:10px;height:10px;background:" + (localStorage.getItem("k") ? "black" : "white")</script>`;
    try {
      await browser.capture({
        html: `<script>localStorage.setItem("k","1");sessionStorage.setItem("k","1");
        document.cookie="a=1"</script>`,
        width: 20,
        height: 20,
      });
      const { png } = await browser.capture({ html: read, width: 20, height: 20 });
      const image = decode(png);
      // The box is white: nothing was stored for this render.
      assertEquals(image.data[0], 255);
    } finally {
      await browser.close();
    }
  },
);

Deno.test(
  "renders share no state: storage, cookies, globals, timers and history of one are absent in the next",
  options,
  async () => {
    const browser = new HtmlBrowser({ concurrency: 1 });
    // Leaves what a page can leave: globals on window and on a prototype, the window's name, a
    // timer that keeps writing, a history entry; and storage, a cookie and a database, which the
    // page's opaque origin is denied anyway (each check below counts only what it can read).
    const leave = `<script>
      try { localStorage.setItem("k", "1"); sessionStorage.setItem("k", "1"); } catch {}
      document.cookie = "a=1";
      try { indexedDB.open("leak", 1); } catch {}
      window.leaked = 1; Object.prototype.leakedProto = 1; window.name = "leaked";
      setInterval(() => { window.lateLeak = 1; try { localStorage.setItem("late", "1"); } catch {} }, 1);
      try { history.pushState({}, "", "#leak"); } catch {}
    </script>`;
    // A black box when anything of an earlier render is seen, white otherwise.
    const read = `<style>body{margin:0}</style>
      <div id=o style="width:10px;height:10px;background:black"></div><script>
      const seen = [];
      try { if (localStorage.length || sessionStorage.length) seen.push("storage"); } catch {}
      try { if (document.cookie) seen.push("cookie"); } catch {}
      if ("leaked" in window || "lateLeak" in window || ({}).leakedProto) seen.push("global");
      if (window.name) seen.push("name");
      if (location.hash || history.length > 1) seen.push("history");
      document.getElementById("o").style.background = seen.length ? "black" : "white";
    </script>`;
    try {
      for (let i = 0; i < 3; i++) {
        await browser.capture({ html: leave, width: 20, height: 20 });
        // The earlier render's context is closed after it answered, maybe while this one draws.
        const { png } = await browser.capture({ html: read, width: 20, height: 20 });
        assertEquals(decode(png).data[0], 255, "a render saw an earlier one's state");
      }
    } finally {
      await browser.close();
    }
  },
);

Deno.test(
  "animations are drawn still: finite at their end, infinite at their start",
  options,
  async () => {
    const browser = new HtmlBrowser();
    const html = `<style>body{margin:0}
    @keyframes fade{from{background:#000}to{background:#fff}}
    #end{width:10px;height:10px;background:#000;animation:fade 60s forwards}
    #start{width:10px;height:10px;background:#000;animation:fade 60s infinite}
    </style><div id=end></div><div id=start></div>`;
    try {
      const image = decode((await browser.capture({ html, width: 10, height: 20 })).png);
      const channels = image.data.length / (image.width * image.height);
      // Finished: the last frame, kept (forwards).
      assertEquals(image.data[5 * 10 * channels], 255);
      // Cancelled: the element's own style.
      assertEquals(image.data[15 * 10 * channels], 0);
    } finally {
      await browser.close();
    }
  },
);

Deno.test("broken markup still draws", options, async () => {
  const browser = new HtmlBrowser();
  try {
    const { png } = await browser.capture({
      html: "<div><p>unclosed <b>bold <table><tr><td>cell</div></span>&bogus; <img src=>",
      width: 120,
      height: 60,
    });
    assertEquals(decode(png).width, 120);
    // A page that broke the APIs its screenshot is prepared with is drawn as it is.
    const broken = await browser.capture({
      html: `<p>x</p><script>document.getAnimations = () => { throw new Error("no"); };
        Object.defineProperty(document, "fonts", { get() { throw new Error("no"); } });</script>`,
      width: 40,
      height: 20,
    });
    assertEquals(decode(broken.png).width, 40);
  } finally {
    await browser.close();
  }
});

Deno.test(
  "pictures are found after layout: img, svg, canvas, background images",
  options,
  async () => {
    const browser = new HtmlBrowser();
    const pixel =
      "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABc3UBGAAAAABJRU5ErkJggg==";
    try {
      const { pictures } = await browser.capture({
        html: `<style>body{margin:0}</style>
        <img src="${pixel}" style="position:absolute;left:10px;top:5px;width:20px;height:10px">
        <svg style="position:absolute;left:40px;top:0" width="30" height="30"><rect width="9" height="9"/></svg>
        <canvas style="position:absolute;left:0;top:40px" width="50" height="10"></canvas>
        <div style="position:absolute;left:100px;top:0;width:10px;height:10px;background:url(${pixel})"></div>
        <div style="position:absolute;left:120px;top:0;width:10px;height:10px;background:linear-gradient(red,blue)"></div>
        <img src="${pixel}" style="position:absolute;left:190px;top:90px;width:40px;height:40px">`,
        width: 200,
        height: 100,
      });
      assertEquals(pictures, [
        { x: 10, y: 5, width: 20, height: 10 },
        { x: 40, y: 0, width: 30, height: 30 },
        { x: 0, y: 40, width: 50, height: 10 },
        { x: 100, y: 0, width: 10, height: 10 },
        // Clipped to the viewport.
        { x: 190, y: 90, width: 10, height: 10 },
      ]);
    } finally {
      await browser.close();
    }
  },
);

Deno.test("over its queue a render is refused as busy", options, async () => {
  const browser = new HtmlBrowser({ concurrency: 1, maxQueue: 1, deadlineMs: 15_000 });
  const slow = "<script>const end = Date.now() + 1500; while (Date.now() < end) {}</script>";
  try {
    const running = browser.capture({ html: slow, width: 20, height: 20 });
    const waiting = browser.capture({ html: "<p>x</p>", width: 20, height: 20 });
    await assertRejects(
      () => browser.capture({ html: "<p>y</p>", width: 20, height: 20 }),
      RenderUnavailable,
      "busy",
    );
    await Promise.all([running, waiting]);
  } finally {
    await browser.close();
  }
});

Deno.test("Chromium is described: version, path, source, sandbox", options, async () => {
  const browser = new HtmlBrowser();
  try {
    const description = await browser.describe();
    assert(/^\d+\./.test(description.version));
    assertEquals(description.sandbox, Deno.uid() !== 0);
    assert(["system", "CHROMIUM_PATH", "@sparticuz/chromium"].includes(description.source));
  } finally {
    await browser.close();
  }
});

Deno.test("a CHROMIUM_PATH that is no file refuses as unavailable", options, async () => {
  const browser = new HtmlBrowser({ chromiumPath: "/nonexistent/chromium" });
  await assertRejects(
    () => browser.capture({ html: "x", width: 10, height: 10 }),
    RenderUnavailable,
    "CHROMIUM_PATH",
  );
  await browser.close();
});

Deno.test(
  "Chromium closes after idling and launches again for the next render",
  options,
  async () => {
    const browser = new HtmlBrowser({ idleMs: 300 });
    try {
      await browser.capture({ html: "<p>a</p>", width: 20, height: 20 });
      assert(browser.launched);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert(!browser.launched, "closed after idling");
      const { png } = await browser.capture({ html: "<p>b</p>", width: 20, height: 20 });
      assertEquals(decode(png).width, 20);
    } finally {
      await browser.close();
    }
  },
);

/** The process ids of this process's descendants (the Chromium this test launched). */
async function descendants(): Promise<number[]> {
  const parents = new Map<number, number>();
  for await (const entry of Deno.readDir("/proc")) {
    const pid = Number(entry.name);
    if (!Number.isInteger(pid)) continue;
    try {
      const status = await Deno.readTextFile(`/proc/${pid}/status`);
      parents.set(pid, Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0));
    } catch {
      // Ended meanwhile.
    }
  }
  return [...parents.keys()].filter((pid) => {
    for (let p = parents.get(pid); p; p = parents.get(p)) if (p === Deno.pid) return true;
    return false;
  });
}

/** How many renderer processes (a page's, prepared or drawing) the launched Chromium has. */
async function renderers(): Promise<number> {
  let count = 0;
  for (const pid of await descendants()) {
    try {
      if ((await Deno.readTextFile(`/proc/${pid}/cmdline`)).includes("--type=renderer")) count++;
    } catch {
      // Ended meanwhile.
    }
  }
  return count;
}

Deno.test(
  "prepared contexts are closed when nothing draws; the next render prepares its own",
  options,
  async () => {
    const browser = new HtmlBrowser({ spareIdleMs: 300 });
    try {
      await browser.capture({ html: "<p>a</p>", width: 20, height: 20 });
      // Answered, then its own context closed: the spares stay while renders may follow.
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert(await renderers() >= 1, "spares prepared after a render");
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assertEquals(await renderers(), 0, "no renderer process left while idle");
      assert(browser.launched, "the browser itself stays for its own idle time");
      const { png } = await browser.capture({ html: "<p>b</p>", width: 20, height: 20 });
      assertEquals(decode(png).width, 20);
    } finally {
      await browser.close();
    }
  },
);

Deno.test("a crashed Chromium is launched again by the next render", options, async () => {
  const browser = new HtmlBrowser();
  try {
    await browser.capture({ html: "<p>a</p>", width: 20, height: 20 });
    // Kills the Chromium this test launched, by process id.
    for (const pid of await descendants()) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // Already gone with its parent.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const { png } = await browser.capture({ html: "<p>b</p>", width: 30, height: 20 });
    assertEquals(decode(png).width, 30);
  } finally {
    await browser.close();
  }
});
