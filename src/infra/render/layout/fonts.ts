/**
 * The fonts every layout uses, read once per thread: Noto Sans 400 and 700 for Latin (and
 * Greek, Cyrillic), Noto Sans SC 400 for CJK. STACK.md: real TTF from @expo-google-fonts (resvg
 * and satori need TTF; WOFF renders no text), only the weights used.
 */

/** The family every box inherits; satori falls back per glyph to the CJK font. */
export const FONT_FAMILY = "Noto Sans";
/** The CJK family: one weight (10.5 MB each), so bold CJK text is drawn regular. */
export const CJK_FONT_FAMILY = "Noto Sans SC";

/** A font as satori takes it. */
export interface LayoutFont {
  name: string;
  data: ArrayBuffer;
  weight: 400 | 700;
  style: "normal";
}

const FILES = [
  {
    name: FONT_FAMILY,
    weight: 400,
    path: "@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf",
  },
  {
    name: FONT_FAMILY,
    weight: 700,
    path: "@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf",
  },
  {
    name: CJK_FONT_FAMILY,
    weight: 400,
    path: "@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf",
  },
] as const;

let fonts: Promise<LayoutFont[]> | undefined;

/**
 * The three fonts, read on first use and then shared. The same array is handed to satori on
 * every call, so satori's per-font-list cache keeps the parsed glyph tables.
 */
export function loadFonts(): Promise<LayoutFont[]> {
  fonts ??= Promise.all(
    FILES.map(async ({ name, weight, path }) => {
      const bytes = await Deno.readFile(new URL(import.meta.resolve(path)));
      return { name, weight, style: "normal" as const, data: bytes.buffer as ArrayBuffer };
    }),
  );
  return fonts;
}
