import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { boundaryOf, MultipartReader } from "./multipart.ts";

const encoder = new TextEncoder();

/** A stream delivering `text` in pieces of `size` bytes (delimiters split across reads). */
function streamOf(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = encoder.encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

const FORM = [
  "preamble to ignore\r\n",
  "--XX\r\n",
  'Content-Disposition: form-data; name="key"\r\n\r\n',
  "uploads/a/b\r\n",
  "--XX  \r\n", // transport padding after a delimiter is allowed
  'Content-Disposition: form-data; name="file"; filename="a \\"b\\".png"\r\n',
  "Content-Type: image/png\r\n\r\n",
  "line one\r\n--X not a delimiter\r\nline two",
  "\r\n--XX--\r\nepilogue",
].join("");

async function readAll(size: number) {
  const form = new MultipartReader(streamOf(FORM, size), "XX", 1024);
  const key = await form.next();
  const keyValue = await form.text("key", 100);
  const file = await form.next();
  const chunks: Uint8Array[] = [];
  for await (const chunk of form.chunks()) chunks.push(chunk.slice());
  const ends = await form.ends();
  return { key, keyValue, file, body: new TextDecoder().decode(concat(chunks)), ends };
}

function concat(parts: Uint8Array[]) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

Deno.test("multipart: fields, file and end, whatever the network chunk size", async () => {
  for (const size of [1, 2, 3, 5, 7, 64, 4096]) {
    const all = await readAll(size);
    assertEquals(all.key, { name: "key", filename: undefined, contentType: undefined }, `${size}`);
    assertEquals(all.keyValue, "uploads/a/b");
    assertEquals(all.file, { name: "file", filename: 'a "b".png', contentType: "image/png" });
    assertEquals(all.body, "line one\r\n--X not a delimiter\r\nline two", `${size}`);
    assertEquals(all.ends, true);
  }
});

Deno.test("multipart: boundaries from the Content-Type", () => {
  assertEquals(boundaryOf("multipart/form-data; boundary=abc"), "abc");
  assertEquals(boundaryOf('Multipart/Form-Data; charset=utf-8; boundary="a b:c"'), "a b:c");
  assertEquals(boundaryOf("multipart/form-data"), null);
  assertEquals(boundaryOf("multipart/mixed; boundary=abc"), null);
  assertEquals(boundaryOf(`multipart/form-data; boundary=${"x".repeat(71)}`), null);
  assertEquals(boundaryOf("multipart/form-datax; boundary=abc"), null);
});

Deno.test("multipart: the header budget bounds what is read before a part body", async () => {
  const long = `--XX\r\nContent-Disposition: form-data; name="a"\r\nX-Pad: ${"p".repeat(5000)}`;
  const form = new MultipartReader(streamOf(long, 100), "XX", 1024);
  const error = await form.next().catch((e) => e);
  assert.match(String(error), /over 1024 bytes/);
  // The reader stopped near the budget instead of reading the whole header.
  assert.ok(form.consumed <= 1024 + 100, `${form.consumed}`);
});

Deno.test("multipart: a field over its limit, a truncated body, a nameless part", async () => {
  const field = new MultipartReader(
    streamOf('--XX\r\nContent-Disposition: form-data; name="a"\r\n\r\n0123456789\r\n--XX--', 4),
    "XX",
    1024,
  );
  await field.next();
  assert.match(String(await field.text("a", 5).catch((e) => e)), /Form field a is over 5 bytes/);
  const cut = new MultipartReader(
    streamOf('--XX\r\nContent-Disposition: form-data; name="a"\r\n\r\n0123', 4),
    "XX",
    1024,
  );
  await cut.next();
  assert.match(String(await cut.text("a", 100).catch((e) => e)), /ended before/);
  const nameless = new MultipartReader(
    streamOf("--XX\r\nContent-Disposition: attachment\r\n\r\nx\r\n--XX--", 4),
    "XX",
    1024,
  );
  assert.match(String(await nameless.next().catch((e) => e)), /no form-data name/);
});
