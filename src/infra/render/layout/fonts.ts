/**
 * The fonts every layout uses, read once per thread: Noto Sans 400 and 700 for Latin (and
 * Greek, Cyrillic), Noto Sans SC 400 for CJK. STACK.md: real TTF from @expo-google-fonts (resvg
 * and satori need TTF; WOFF renders no text), only the weights used.
 *
 * The CJK font is read only once a text needs a character the Latin fonts lack (issue 26): parsed
 * and drawn from, it holds ~45 MB of each render thread, and most renders never touch it.
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

const LATIN = [
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
] as const;

const CJK = {
  name: CJK_FONT_FAMILY,
  weight: 400,
  path: "@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf",
} as const;

type FontFile = typeof LATIN[number] | typeof CJK;

async function read({ name, weight, path }: FontFile): Promise<LayoutFont> {
  const bytes = await Deno.readFile(new URL(import.meta.resolve(path)));
  return { name, weight, style: "normal" as const, data: bytes.buffer as ArrayBuffer };
}

/** The Latin fonts and the characters both of them draw. */
let latin: Promise<{ fonts: LayoutFont[]; covered: Set<number> }> | undefined;
let all: Promise<LayoutFont[]> | undefined;

function loadLatin() {
  latin ??= Promise.all(LATIN.map(read)).then((fonts) => {
    const [regular, bold] = fonts.map((font) => cmapCodePoints(font.data));
    return { fonts, covered: new Set([...regular].filter((c) => bold.has(c))) };
  });
  return latin;
}

/** The three fonts, the Latin ones first (the same objects `fontsFor` hands out). */
export function loadFonts(): Promise<LayoutFont[]> {
  all ??= Promise.all([loadLatin(), read(CJK)]).then(([{ fonts }, cjk]) => [...fonts, cjk]);
  return all;
}

/** What satori draws at a clipped line's end (`lineClamp`, `textOverflow`), not in the text. */
const INSERTED = "…";

/**
 * The fonts for a layout whose text is `text`: the two Latin fonts when both draw every
 * character of it (so the CJK font would never be asked for a glyph), else all three. Each list
 * is the same array on every call, so satori's per-font-list cache keeps the parsed tables.
 */
export async function fontsFor(text: string): Promise<LayoutFont[]> {
  const { fonts, covered } = await loadLatin();
  for (const char of text + text.toUpperCase() + text.toLowerCase() + INSERTED) {
    const code = char.codePointAt(0)!;
    // Control characters (line breaks, tabs) are layout, never drawn.
    if (code >= 0x20 && !covered.has(code)) return await loadFonts();
  }
  return fonts;
}

/** The Unicode code points a TrueType font maps to glyphs (its cmap, formats 4 and 12). */
export function cmapCodePoints(font: ArrayBuffer): Set<number> {
  const view = new DataView(font);
  const tables = view.getUint16(4);
  let cmap = -1;
  for (let i = 0; i < tables; i++) {
    const record = 12 + i * 16;
    if (view.getUint32(record) === 0x636d6170 /* "cmap" */) cmap = view.getUint32(record + 8);
  }
  if (cmap < 0) throw new Error("font has no cmap table");
  const codes = new Set<number>();
  const subtables = view.getUint16(cmap + 2);
  for (let i = 0; i < subtables; i++) {
    const platform = view.getUint16(cmap + 4 + i * 8);
    const encoding = view.getUint16(cmap + 6 + i * 8);
    // Unicode subtables only: Windows BMP (3,1) or full (3,10), or Unicode platform (0,*).
    if (!(platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10)))) continue;
    const at = cmap + view.getUint32(cmap + 8 + i * 8);
    const format = view.getUint16(at);
    if (format === 4) {
      const segments = view.getUint16(at + 6) / 2;
      const ends = at + 14;
      const starts = ends + segments * 2 + 2;
      const deltas = starts + segments * 2;
      const offsets = deltas + segments * 2;
      for (let s = 0; s < segments; s++) {
        const end = view.getUint16(ends + s * 2);
        const start = view.getUint16(starts + s * 2);
        const delta = view.getUint16(deltas + s * 2);
        const offsetAt = offsets + s * 2;
        const offset = view.getUint16(offsetAt);
        for (let c = start; c <= end && c !== 0xffff; c++) {
          const glyph = offset === 0
            ? (c + delta) & 0xffff
            : glyphAt(view, offsetAt + offset + (c - start) * 2, delta);
          if (glyph !== 0) codes.add(c);
        }
      }
    } else if (format === 12) {
      const groups = view.getUint32(at + 12);
      for (let g = 0; g < groups; g++) {
        const group = at + 16 + g * 12;
        const start = view.getUint32(group);
        const end = view.getUint32(group + 4);
        const first = view.getUint32(group + 8);
        for (let c = start; c <= end; c++) if (first + (c - start) !== 0) codes.add(c);
      }
    }
  }
  return codes;
}

function glyphAt(view: DataView, at: number, delta: number): number {
  const glyph = view.getUint16(at);
  return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
}
