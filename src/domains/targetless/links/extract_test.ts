import { assertEquals } from "../../../../tests/helpers/assert.ts";
import { decodeEntities, decodeText, extractHtml, extractPlain } from "./extract.ts";

Deno.test("HTML: og:title over <title>, the description, visible text only", () => {
  const html = `<!doctype html><html><head><title>Plain &amp; simple</title>
    <meta property="og:title" content="Lake &quot;Bled&quot;">
    <meta name="description" content='A day by the lake'>
    <style>body { color: red }</style><script>alert("x")</script></head>
    <body><nav>Menu</nav><h1>Day &#x2014; trip</h1><p>Walk <b>around</b> the lake.</p>
    <!-- hidden --><script>var secret = 1</script><footer>Imprint</footer></body></html>`;
  assertEquals(extractHtml("https://e.com/", html), {
    url: "https://e.com/",
    title: 'Lake "Bled"',
    description: "A day by the lake",
    text: "Day — trip\nWalk around the lake.",
  });
  assertEquals(extractHtml("u", "<title>Only &amp; title</title>").title, "Only & title");
});

Deno.test("plain text: the first line is the title; entities and charsets", () => {
  assertEquals(extractPlain("u", "\n  Shopping  \nmilk\n\neggs\n"), {
    url: "u",
    title: "Shopping",
    description: "",
    text: "Shopping\nmilk\neggs",
  });
  assertEquals(
    decodeEntities("&lt;b&gt; &#65;&#x42; &bogus; &#0; &#xD800;"),
    "<b> AB &bogus; \uFFFD \uFFFD",
  );
  assertEquals(decodeText(new Uint8Array([0xe9, 0x00, 0x41]), "iso-8859-1"), "éA");
  assertEquals(decodeText(new TextEncoder().encode("ok"), "no-such-charset"), "ok");
});
