import { assertEquals } from "../../../tests/helpers/assert.ts";
import { PRESETS, resolveOutputProfile } from "./output_profile.ts";

const MAX = 4_000_000;
const ok = (input: Parameters<typeof resolveOutputProfile>[0], max = MAX) => {
  const result = resolveOutputProfile(input, max);
  if (!result.ok) throw new Error(result.message);
  return result.profile;
};
const problem = (input: Parameters<typeof resolveOutputProfile>[0], max = MAX) => {
  const result = resolveOutputProfile(input, max);
  if (result.ok) throw new Error("expected a problem");
  return result.message;
};

Deno.test("neither preset nor viewport: the default 800x480 colour profile, both formats", () => {
  assertEquals(ok({}), {
    formats: ["scene", "png"],
    preset: "default",
    viewport: { width: 800, height: 480 },
    colorMode: "color",
  });
});

Deno.test("every preset of the registry resolves to its viewport and colour mode", () => {
  for (const [name, entry] of Object.entries(PRESETS)) {
    const profile = ok({ preset: name });
    assertEquals([profile.preset, profile.viewport, profile.colorMode], [
      name,
      entry.viewport,
      entry.colorMode,
    ]);
  }
  assertEquals(ok({ preset: "macos-widget-small" }).viewport, { width: 170, height: 170 });
  assertEquals(ok({ preset: "macos-widget-medium" }).viewport, { width: 360, height: 170 });
  assertEquals(ok({ preset: "macos-widget-large" }).viewport, { width: 360, height: 376 });
});

Deno.test("a viewport has no preset; colorMode and formats as given, formats de-duplicated", () => {
  assertEquals(
    ok({ viewport: { width: 1, height: 1 }, formats: ["png", "png"], colorMode: "monochrome" }),
    {
      formats: ["png"],
      preset: null,
      viewport: { width: 1, height: 1 },
      colorMode: "monochrome",
    },
  );
  assertEquals(ok({ viewport: { width: 8192, height: 488 } }).viewport, {
    width: 8192,
    height: 488,
  });
  assertEquals(ok({ preset: null, viewport: { width: 2000, height: 2000 } }).preset, null);
});

Deno.test("refusals: preset and viewport, unknown preset, sides, pixels, empty formats", () => {
  assertEquals(
    problem({ preset: "default", viewport: { width: 10, height: 10 } }),
    "output.preset and output.viewport are mutually exclusive",
  );
  assertEquals(/not one of default, macos-widget-small/.test(problem({ preset: "huge" })), true);
  assertEquals(
    /width 0 is not an integer from 1 to 8192/.test(problem({ viewport: { width: 0, height: 5 } })),
    true,
  );
  assertEquals(/height 8193/.test(problem({ viewport: { width: 5, height: 8193 } })), true);
  assertEquals(/width 1\.5/.test(problem({ viewport: { width: 1.5, height: 5 } })), true);
  assertEquals(
    problem({ viewport: { width: 2001, height: 2000 } }),
    "output.viewport 2001x2000 is over the limit of 4000000 pixels",
  );
  assertEquals(ok({ viewport: { width: 2000, height: 2000 } }).viewport.width, 2000);
  // The setting applies to presets too.
  assertEquals(/over the limit of 100000/.test(problem({}, 100_000)), true);
  assertEquals(ok({ preset: "macos-widget-small" }, 100_000).viewport.width, 170);
  assertEquals(problem({ formats: [] }), "output.formats must list scene, png or both");
});
