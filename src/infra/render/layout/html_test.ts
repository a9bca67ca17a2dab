import { assert, assertEquals } from "../../../../tests/helpers/assert.ts";
import { decodeEntities } from "./entities.ts";
import { htmlToTree, type LayoutNode, parseHtml } from "./html.ts";

const ROOT = { width: 800, height: 480 };

/** The root's children, for the assertions. */
function body(html: string, options = {}): unknown {
  return htmlToTree(html, ROOT, options).props.children;
}

Deno.test("entities: named, decimal and hex references decode; unknown names stay", () => {
  assertEquals(
    decodeEntities("a &amp; b &lt;b&gt; &#34;q&#34; &#x27;s&#39; &nbsp;&hellip;"),
    "a & b <b> \"q\" 's' \u00a0\u2026",
  );
  assertEquals(decodeEntities("&bogus; &amp"), "&bogus; &amp");
  assertEquals(decodeEntities("&#0; &#xD800; &#x110000;"), "\ufffd \ufffd \ufffd");
});

Deno.test("html: escaped markup is text: &lt;b&gt; is the characters <b>, &amp;amp; is &amp;", () => {
  // What Liquid's outputEscape produces for a note saying `<b>hi</b> & &amp;`.
  const tree = htmlToTree("<div>&lt;b&gt;hi&lt;/b&gt; &amp; &amp;amp;</div>", ROOT);
  const child = tree.props.children as LayoutNode;
  assertEquals(child.props.children, "<b>hi</b> & &amp;");
});

Deno.test("html: elements, attributes in every quoting style, void and self-closed tags", () => {
  const nodes = parseHtml(
    `<div class="a" id='b' data-x=c hidden><img src="x.png"><br/><span>t</span></div>`,
  );
  assertEquals(nodes, [{
    tag: "div",
    attrs: { class: "a", id: "b", "data-x": "c", hidden: "" },
    children: [
      { tag: "img", attrs: { src: "x.png" }, children: [] },
      { tag: "br", attrs: {}, children: [] },
      { tag: "span", attrs: {}, children: ["t"] },
    ],
  }]);
});

Deno.test("html: forgiving like a browser: stray end tags, unclosed elements, comments, doctype", () => {
  const nodes = parseHtml(
    "<!DOCTYPE html><!-- note --><div><p>one</span>two</div></p>three < four",
  );
  assertEquals(nodes, [
    { tag: "div", attrs: {}, children: [{ tag: "p", attrs: {}, children: ["one", "two"] }] },
    "three ",
    "<",
    " four",
  ]);
});

Deno.test("html: script, style and head content is never text; display:none is dropped", () => {
  assertEquals(
    body(
      "<head><title>t</title></head><script>alert(1)</script><div>a</div><div style='display:none'>b</div>",
    ),
    { type: "div", props: { style: { display: "flex", boxSizing: "border-box" }, children: "a" } },
  );
});

Deno.test("html: whitespace collapses; between boxes it is dropped, between inline runs one space", () => {
  const tree = body(`
    <div>
      <div>  Hello
        world  </div>
      <div><b>bold</b>   <span>next</span> tail </div>
    </div>`) as LayoutNode;
  const [first, second] = tree.props.children as LayoutNode[];
  assertEquals(first.props.children, "Hello world");
  const runs = second.props.children as (LayoutNode | string)[];
  assertEquals(runs.length, 4);
  assertEquals(runs[1], " ");
  assertEquals((runs[0] as LayoutNode).props.style?.fontWeight, 700);
  assertEquals(runs[3], " tail");
});

Deno.test("html: white-space pre-line keeps line breaks (a note's own newlines)", () => {
  const node = body(`<div style="white-space: pre-line">one\n  two\n\nthree</div>`) as LayoutNode;
  assertEquals(node.props.children, "one\ntwo\n\nthree");
});

Deno.test("html: a <style> sheet styles by class and tag; inline style wins", () => {
  const node = body(
    `<style>.t { font-size: 30px; color: red } div { margin: 2px }</style><div class="t" style="color: blue">x</div>`,
  ) as LayoutNode;
  assertEquals(node.props.style, {
    margin: "2px",
    fontSize: "30px",
    color: "blue",
    display: "flex",
    boxSizing: "border-box",
  });
});

Deno.test("html: an <img> is embedded only when the resolver knows its src; otherwise dropped", () => {
  const seen: unknown[] = [];
  const options = {
    resolveImage: (src: string, box: unknown) => {
      seen.push([src, box]);
      return src === "file-1"
        ? { src: "data:image/png;base64,AAAA", width: 40, height: 30 }
        : undefined;
    },
  };
  const nodes = body(
    `<div><img src="file-1" width="80" height="60" style="object-fit: cover"><img src="http://example.com/x.png"></div>`,
    options,
  ) as LayoutNode;
  const img = nodes.props.children as LayoutNode;
  assertEquals(img.type, "img");
  assertEquals(img.props.src, "data:image/png;base64,AAAA");
  assertEquals([img.props.width, img.props.height], [40, 30]);
  assert.ok(!("objectFit" in (img.props.style ?? {})));
  assertEquals(seen, [
    ["file-1", { width: 80, height: 60, fit: "cover" }],
    ["http://example.com/x.png", { width: undefined, height: undefined, fit: undefined }],
  ]);
  // Without a resolver nothing is embedded at all (satori would fetch a URL).
  assertEquals(body(`<img src="http://example.com/x.png">`), undefined);
});

Deno.test("html: the root takes the caller's style and the page's top-level nodes", () => {
  const tree = htmlToTree("<div>a</div><div>b</div>", { width: 10, height: 20 });
  assertEquals(tree.props.style, {
    display: "flex",
    boxSizing: "border-box",
    width: 10,
    height: 20,
  });
  assertEquals((tree.props.children as unknown[]).length, 2);
});
