/**
 * Golden images of the photo pipeline (issue 12): the tone stage on its own (8-bit grey, the
 * picture as the dither sees it) and each diffusion kernel on the committed test photos and the
 * text sample (`tools/make_test_photos.ts` made them), and the photos of paper as `auto` renders
 * them (issue 26: taken for documents, light flattened, thresholded). The text sample is a
 * document too, so it is flattened before its kernel. Pixel-for-pixel, so a change to decoding,
 * tone defaults, the document stage or a kernel fails here until the goldens are updated and
 * looked at.
 */
import { assert } from "../../../tests/helpers/assert.ts";
import { renderImageBitmaps } from "./bitmaps.ts";
import { decodeImage } from "./decode.ts";
import type { DitherKernel } from "./dither.ts";
import { toGrey } from "./grey.ts";
import { encodePng } from "./layout/png_encode.ts";
import { assertGolden } from "./testing/golden.ts";
import { tone } from "./tone.ts";

const PHOTOS = new URL("./testdata/photos/", import.meta.url);
const GOLDENS = new URL("./testdata/goldens/", import.meta.url);

const CASES: Array<[string, DitherKernel[]]> = [
  ["circuit.jpg", ["atkinson", "floyd-steinberg", "threshold"]],
  ["portrait.jpg", ["atkinson", "floyd-steinberg"]],
  ["misty.jpg", ["atkinson", "floyd-steinberg"]],
  ["text.png", ["atkinson", "threshold"]],
];

for (const [photo, kernels] of CASES) {
  const name = photo.replace(/\.\w+$/, "");
  for (const kernel of kernels) {
    Deno.test(`photo golden: ${name} dithered with ${kernel}`, async () => {
      const bytes = await Deno.readFile(new URL(photo, PHOTOS));
      const result = await renderImageBitmaps(bytes, { dither: kernel, fit: "contain" });
      assert.ok(result.ok, result.ok ? "" : result.message);
      await assertGolden(result.bitmaps.png, new URL(`${name}-${kernel}.png`, GOLDENS));
    });
  }
}

for (const photo of ["paper-page.jpg", "paper-note.jpg"]) {
  const name = photo.replace(/\.\w+$/, "");
  Deno.test(`photo golden: ${name} rendered as a document (auto)`, async () => {
    const bytes = await Deno.readFile(new URL(photo, PHOTOS));
    const result = await renderImageBitmaps(bytes, { fit: "contain" });
    assert.ok(result.ok, result.ok ? "" : result.message);
    await assertGolden(result.bitmaps.png, new URL(`${name}-document.png`, GOLDENS));
  });
}

for (const photo of ["portrait.jpg", "misty.jpg"]) {
  const name = photo.replace(/\.\w+$/, "");
  Deno.test(`photo golden: ${name} after the tone stage (8-bit grey)`, async () => {
    const decoded = await decodeImage(await Deno.readFile(new URL(photo, PHOTOS)), {
      box: { width: 800, height: 480 },
      flatten: true,
    });
    assert.ok(decoded.ok);
    if (!decoded.ok) return;
    const grey = tone(toGrey(decoded), decoded.width, decoded.height);
    const png = encodePng({ ...decoded, channels: 1, depth: 8, data: grey, level: 9 });
    await assertGolden(png, new URL(`${name}-tone.png`, GOLDENS));
  });
}
