/**
 * Every template, rendered with its sample.json and (where present) its stress.json (very long
 * text, CJK, markup characters), compared with its committed golden push image. Also checks what
 * a person would check on the panel: text is never dithered, and nothing spills into the margins.
 */
import { assert } from "../../../../tests/helpers/assert.ts";
import { assertGolden } from "../testing/golden.ts";
import { templateRegistry, TEMPLATES_DIR } from "./registry.ts";
import { renderTemplateBitmaps } from "./render.ts";
import { loadTemplateImages } from "./sample_images.ts";

/** Goldens are rendered at a fixed instant, so the countdown reads the same every day. */
export const GOLDEN_NOW = "2025-03-14T09:00:00Z";

const registry = templateRegistry();

function readVariables(url: URL): Record<string, unknown> | undefined {
  try {
    return JSON.parse(Deno.readTextFileSync(url));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** Level of pixel (x, y) in a 2 bpp raw4 frame. */
function level4(raw4: Uint8Array, x: number, y: number): number {
  return (raw4[y * 200 + (x >> 2)] >> (6 - 2 * (x & 3))) & 3;
}

for (const { name } of registry.list()) {
  const template = registry.get(name)!;
  const folder = new URL(`${name}/`, TEMPLATES_DIR);
  for (const variant of ["sample", "stress"]) {
    const variables = variant === "sample"
      ? template.sample
      : readVariables(new URL(`${variant}.json`, folder));
    if (!variables) continue;
    Deno.test(`template golden: ${name} (${variant})`, async () => {
      const images = await loadTemplateImages(template, variables, folder);
      const result = await renderTemplateBitmaps(registry, {
        name,
        variables,
        images,
        now: GOLDEN_NOW,
      });
      if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
      const { raw2, raw4, png } = result.bitmaps;
      if (template.imageVariables.length === 0) {
        // Text and rules are black on white: no grey level appears in the 4-grey frame either.
        for (let y = 0; y < 480; y++) {
          for (let x = 0; x < 800; x++) {
            const level = level4(raw4, x, y);
            assert.ok(
              level === 0 || level === 3,
              `grey level ${level} at ${x},${y}: text was dithered`,
            );
          }
        }
        // Long text is clipped with an ellipsis, never spills: a 16 px margin stays white.
        for (let y = 0; y < 480; y++) {
          for (let x = 0; x < 800; x++) {
            if (x >= 16 && x < 784 && y >= 16 && y < 464) continue;
            assert.ok(
              raw2[y * 100 + (x >> 3)] & (0x80 >> (x & 7)),
              `ink in the margin at ${x},${y}`,
            );
          }
        }
      }
      const golden = variant === "sample" ? "golden.png" : `golden-${variant}.png`;
      await assertGolden(png, new URL(golden, folder));
    });
  }
}
