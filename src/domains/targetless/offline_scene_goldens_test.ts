/**
 * Golden images of the offline model's Scenes: each case of `OFFLINE_CASES` at every preset of
 * SPEC 2.10 in colour, and on the default preset in 1-bit, rendered by the Scene renderer and
 * compared pixel for pixel with `testdata/offline/<case>-<preset>.png`. After an intended change
 * to the layout, `deno task goldens:update` rewrites them; look at the new PNGs before committing.
 */
import { assertGolden } from "../../infra/render/testing/golden.ts";
import { renderScene } from "../../infra/render/scene/render.ts";
import type { ColorMode } from "../../infra/render/scene/types.ts";
import { layoutScene } from "./offline_scene.ts";
import { OFFLINE_CASES, SAMPLE_PICTURES } from "./offline_scene_cases.ts";
import { PRESETS } from "./output_profile.ts";

const TESTDATA = new URL("./testdata/offline/", import.meta.url);

const runs: Array<{ name: string; preset: string; colorMode: ColorMode }> = [];
for (const name of Object.keys(OFFLINE_CASES)) {
  for (const preset of Object.keys(PRESETS)) runs.push({ name, preset, colorMode: "color" });
  runs.push({ name, preset: "default", colorMode: "monochrome" });
}

for (const { name, preset, colorMode } of runs) {
  const file = `${name}-${preset}${colorMode === "color" ? "" : `-${colorMode}`}.png`;
  Deno.test(`offline scene golden: ${file}`, async () => {
    const { viewport } = PRESETS[preset];
    const scene = layoutScene({ ...OFFLINE_CASES[name], viewport, colorMode });
    const result = await renderScene({
      scene,
      images: SAMPLE_PICTURES,
      width: viewport.width,
      height: viewport.height,
      colorMode,
    });
    if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
    await assertGolden(result.png, new URL(file, TESTDATA));
  });
}
