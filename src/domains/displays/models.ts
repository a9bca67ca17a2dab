/**
 * The model registry (CONTRACT.md: TRMNL's model names): a panel's size and grey depth by the
 * `Model` header its firmware sends. Depths are what this service renders (1, 2 or 4 bits of
 * grey); panels with more grey levels get 4. An unknown model renders like `og`.
 */
export interface PanelModel {
  label: string;
  width: number;
  height: number;
  bitDepth: 1 | 2 | 4;
  /** Degrees the picture is turned onto the panel unless the owner says otherwise (default 0). */
  rotation?: 90;
}

export const MODELS: Readonly<Record<string, PanelModel>> = {
  og: { label: "TRMNL OG", width: 800, height: 480, bitDepth: 1 },
  og_png: { label: "TRMNL OG (PNG)", width: 800, height: 480, bitDepth: 1 },
  og_gen2: { label: "TRMNL OG, 2-bit grey firmware", width: 800, height: 480, bitDepth: 2 },
  x: { label: "TRMNL X", width: 1872, height: 1404, bitDepth: 4 },
  seeed_esp32c3: {
    label: 'Seeed XIAO ESP32-C3 with a 7.5" panel',
    width: 800,
    height: 480,
    bitDepth: 1,
  },
  seeed_esp32s3: {
    label: 'Seeed XIAO ESP32-S3 with a 7.5" panel',
    width: 800,
    height: 480,
    bitDepth: 1,
  },
  reterminal_e1001: { label: "Seeed reTerminal E1001", width: 800, height: 480, bitDepth: 2 },
  waveshare: { label: 'Waveshare 7.5" panel', width: 800, height: 480, bitDepth: 1 },
  inkplate_10: { label: "Inkplate 10", width: 1200, height: 825, bitDepth: 2 },
  kindle_pw: { label: "Kindle Paperwhite", width: 1448, height: 1072, bitDepth: 4 },
  kindle_4: { label: "Kindle 4", width: 800, height: 600, bitDepth: 4 },
  /**
   * TRMNL's Kindle client (`TRMNL.sh`): it sends no `Model`, asks with `png-width`/`png-height`
   * for a landscape picture (its framebuffer's height and width) and hands the PNG unturned to
   * `eips -g` on its portrait framebuffer. So its panel is the framebuffer (a Paperwhite's
   * 1072x1448 here, the reported sides once it polls), 16 greys drawn as 4 bits, and the
   * landscape picture turned 90 degrees onto it.
   */
  kindle: {
    label: "Kindle (TRMNL's Kindle client)",
    width: 1072,
    height: 1448,
    bitDepth: 4,
    rotation: 90,
  },
  xteink_x4: { label: "XteInk X4", width: 800, height: 480, bitDepth: 1 },
};

/** What a display without a known model is rendered as. */
export const DEFAULT_MODEL = "og";

/** The model of a name, case-insensitively; undefined when unknown. */
export function modelOf(name: string | null | undefined): PanelModel | undefined {
  if (!name) return undefined;
  const key = name.trim().toLowerCase();
  return Object.hasOwn(MODELS, key) ? MODELS[key] : undefined;
}
