import { encode } from "fast-png";
import { assert, assertEquals } from "../../../../tests/helpers/assert.ts";
import { bombs, MiB } from "../../../../tests/helpers/bombs.ts";
import { cropAndResize, decodePicture, loadPicture, pictureDataUri } from "./image.ts";

function png(width: number, height: number, channels: 1 | 2 | 3 | 4, fill: number[]) {
  const data = new Uint8Array(width * height * channels);
  for (let i = 0; i < data.length; i += channels) data.set(fill, i);
  return encode({ width, height, data, channels });
}

Deno.test("picture: colour, grey and alpha planes; an opaque alpha plane is dropped", async () => {
  const rgba = await decodePicture(png(4, 2, 4, [255, 0, 0, 128]), { grey: false });
  assert.ok(rgba.ok);
  assertEquals([rgba.picture.width, rgba.picture.height, rgba.picture.planes.length], [4, 2, 4]);
  assertEquals([...rgba.picture.planes.map((p) => p[0])], [255, 0, 0, 128]);
  const grey = await decodePicture(png(4, 2, 4, [255, 0, 0, 255]), { grey: true });
  assert.ok(grey.ok);
  assertEquals(grey.picture.planes.length, 1);
  assertEquals(grey.picture.planes[0][0], 76); // BT.601 luma of red
});

Deno.test("picture: refusals name why, before decoding where the header tells", async () => {
  const text = await decodePicture(new TextEncoder().encode("hello"), { grey: true });
  assertEquals(text.ok ? "" : text.code, "unsupported_format");
  const huge = png(1, 1, 1, [0]);
  new DataView(huge.buffer).setUint32(16, 100_000); // header claims 100000x1... and
  new DataView(huge.buffer).setUint32(20, 100_000); // ...x100000: 10 gigapixels
  const big = await decodePicture(huge, { grey: true });
  assertEquals(big.ok ? "" : big.code, "too_large");
  const broken = await decodePicture(png(8, 8, 1, [0]).slice(0, 40), { grey: true });
  assertEquals(broken.ok ? "" : broken.code, "undecodable");
});

Deno.test("picture: crop and resize take exactly the region asked for", () => {
  const data = new Uint8Array(4 * 2);
  data.set([0, 0, 255, 255, 0, 0, 255, 255]); // left half black, right half white
  const picture = { width: 4, height: 2, planes: [data] };
  const right = cropAndResize(picture, { x: 2, y: 0, width: 2, height: 2 }, 1, 1);
  assertEquals([...right.planes[0]], [255]);
  const whole = cropAndResize(picture, { x: 0, y: 0, width: 4, height: 2 }, 2, 1);
  assertEquals([...whole.planes[0]], [0, 255]);
  assert.ok(pictureDataUri(whole).startsWith("data:image/png;base64,iVBORw0KGgo"));
});

Deno.test("picture cache: the same bytes decode once, other bytes are other pictures", async () => {
  const a = png(3, 3, 3, [10, 20, 30]);
  const b = png(3, 3, 3, [10, 20, 31]);
  const first = await loadPicture(a, { grey: false });
  const again = await loadPicture(a.slice(), { grey: false });
  const other = await loadPicture(b, { grey: false });
  const grey = await loadPicture(a, { grey: true });
  assert.ok(first.ok && again.ok && other.ok && grey.ok);
  assert.ok(first.picture === again.picture, "a hit returns the cached picture");
  assert.ok(first.picture !== other.picture);
  assertEquals(other.picture.planes[2][0], 31);
  assertEquals(grey.picture.planes.length, 1);
});

Deno.test("picture: a large reduction (2x2 halving, then resampling) still averages areas", () => {
  // 16x8: the left 8 columns 0, the right 8 columns 200; reduced to 2x1 and to 1x1.
  const data = new Uint8Array(16 * 8).map((_, i) => (i % 16 < 8 ? 0 : 200));
  const picture = { width: 16, height: 8, planes: [data] };
  const crop = { x: 0, y: 0, width: 16, height: 8 };
  assertEquals([...cropAndResize(picture, crop, 2, 1).planes[0]], [0, 200]);
  assertEquals([...cropAndResize(picture, crop, 1, 1).planes[0]], [100]);
  assertEquals([...cropAndResize(picture, crop, 5, 1).planes[0]], [0, 0, 100, 200, 200]);
});

Deno.test("picture: a template's or Scene's image goes through the same bomb guards", async () => {
  for (const bomb of await bombs()) {
    const before = Deno.memoryUsage().rss;
    const result = await decodePicture(bomb.bytes, { grey: false });
    const growth = Deno.memoryUsage().rss - before;
    if (!bomb.mayRender) {
      assert.ok(!result.ok, bomb.name);
      assert.ok(["too_large", "undecodable"].includes(result.code), `${bomb.name}: ${result.code}`);
    }
    assert.ok(growth < 64 * MiB, `${bomb.name}: resident size grew ${growth / MiB} MiB`);
  }
});
