/**
 * The project's own fonts for Chromium (STACK.md: the packaged Chromium brings few fonts, and a
 * system one brings whatever its machine has). A private fontconfig file adds the Noto Sans
 * folders the render pool draws with (`src/infra/render/layout/fonts.ts`) to the system's fonts,
 * and Chromium is launched with it: `font-family: "Noto Sans"` then resolves locally, at no cost
 * per render. Measured here: the same two TTFs inlined as data: URLs (1.7 MB of base64 in every
 * page, since every render has a fresh context and so no cache) made a render ~200 ms slower.
 */

/** The family the built-in stylesheet names (the render pool's layouts use the same). */
export const SCREEN_FONT_FAMILY = "Noto Sans";

const FONT_FILES = [
  "@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf",
  "@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf",
];

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * Writes a fontconfig file into `dir` (the system's configuration, when there is one, plus the
 * project's font folders, its cache in `dir`) and answers its path, for `FONTCONFIG_FILE`.
 */
export async function writeFontConfig(dir: string): Promise<string> {
  const folders = new Set(
    FONT_FILES.map((file) => {
      const path = new URL(import.meta.resolve(file)).pathname;
      return decodeURIComponent(path.slice(0, path.lastIndexOf("/")));
    }),
  );
  const xml = [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
    "<fontconfig>",
    '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>',
    ...[...folders].map((folder) => `  <dir>${escapeXml(folder)}</dir>`),
    `  <cachedir>${escapeXml(`${dir}/cache`)}</cachedir>`,
    "</fontconfig>",
    "",
  ].join("\n");
  const file = `${dir}/fonts.conf`;
  await Deno.writeTextFile(file, xml);
  return file;
}
