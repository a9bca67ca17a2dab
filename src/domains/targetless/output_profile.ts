/**
 * SPEC 2.10 output profiles: the preset registry and the one function that turns a request's
 * `output` into the stored profile (preset xor viewport, sides 1..8192, the pixel limit,
 * formats, colorMode). Pure, so every rule is a unit test.
 */
import type { ColorMode } from "../../infra/render/scene/types.ts";
import type { OutputProfile } from "./tables.ts";

/** SPEC 2.10 preset registry. */
export const PRESETS: Readonly<
  Record<string, { viewport: { width: number; height: number }; colorMode: ColorMode }>
> = {
  "default": { viewport: { width: 800, height: 480 }, colorMode: "color" },
  "macos-widget-small": { viewport: { width: 170, height: 170 }, colorMode: "color" },
  "macos-widget-medium": { viewport: { width: 360, height: 170 }, colorMode: "color" },
  "macos-widget-large": { viewport: { width: 360, height: 376 }, colorMode: "color" },
};

/** SPEC 2.10: viewport sides are integers in 1..8192. */
export const MAX_SIDE = 8192;
export const COLOR_MODES = ["color", "grayscale", "monochrome"] as const;
export const FORMATS = ["scene", "png"] as const;

/** The `output` of a create request, after its types were checked. */
export interface OutputInput {
  preset?: string | null;
  viewport?: { width: number; height: number } | null;
  formats?: Array<"scene" | "png">;
  colorMode?: ColorMode;
}

/** A size a rendition may have: 400 messages for sides out of range and the pixel limit. */
export function checkSize(
  size: { width: number; height: number },
  maxPixels: number,
  what: string,
): string | null {
  for (const side of ["width", "height"] as const) {
    const v = size[side];
    if (!Number.isInteger(v) || v < 1 || v > MAX_SIDE) {
      return `${what} ${side} ${v} is not an integer from 1 to ${MAX_SIDE}`;
    }
  }
  if (size.width * size.height > maxPixels) {
    return `${what} ${size.width}x${size.height} is over the limit of ${maxPixels} pixels`;
  }
  return null;
}

/**
 * Resolves an output profile, or says why it is invalid (a 400 `invalid_request` message).
 * Neither preset nor viewport: the `default` preset. Formats are de-duplicated, in the order
 * given; an explicit colorMode wins over the preset's.
 */
export function resolveOutputProfile(
  input: OutputInput,
  maxPixels: number,
): { ok: true; profile: OutputProfile } | { ok: false; message: string } {
  const preset = input.preset ?? null;
  const viewport = input.viewport ?? null;
  if (preset !== null && viewport !== null) {
    return { ok: false, message: "output.preset and output.viewport are mutually exclusive" };
  }
  let resolved: { viewport: { width: number; height: number }; colorMode: ColorMode };
  let presetName: string | null;
  if (viewport !== null) {
    const problem = checkSize(viewport, maxPixels, "output.viewport");
    if (problem) return { ok: false, message: problem };
    resolved = { viewport: { width: viewport.width, height: viewport.height }, colorMode: "color" };
    presetName = null;
  } else {
    presetName = preset ?? "default";
    if (!Object.hasOwn(PRESETS, presetName)) {
      return {
        ok: false,
        message: `output.preset ${JSON.stringify(presetName)} is not one of ${
          Object.keys(PRESETS).join(", ")
        }`,
      };
    }
    const entry = PRESETS[presetName];
    // The setting may be lower than a preset's size.
    const problem = checkSize(entry.viewport, maxPixels, `output.preset ${presetName}`);
    if (problem) return { ok: false, message: problem };
    resolved = { viewport: { ...entry.viewport }, colorMode: entry.colorMode };
  }
  const formats = input.formats === undefined ? [...FORMATS] : [...new Set(input.formats)];
  if (formats.length === 0) {
    return { ok: false, message: "output.formats must list scene, png or both" };
  }
  return {
    ok: true,
    profile: {
      formats,
      preset: presetName,
      viewport: resolved.viewport,
      colorMode: input.colorMode ?? resolved.colorMode,
    },
  };
}
