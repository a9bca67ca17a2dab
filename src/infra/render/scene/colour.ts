/** Hex colours as Scene v1 writes them (SPEC 2.11): `#RGB`, `#RGBA`, `#RRGGBB`, `#RRGGBBAA`. */

/** A colour with its alpha, each 0..255. */
export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

const HEX = /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

/** True for a hex colour in one of the four forms. */
export function isHexColour(value: unknown): value is string {
  return typeof value === "string" && HEX.test(value);
}

/** Parses a hex colour; undefined when it is not one. */
export function parseHex(value: unknown): Rgba | undefined {
  if (!isHexColour(value)) return undefined;
  let hex = value.slice(1);
  if (hex.length <= 4) hex = [...hex].map((c) => c + c).join("");
  const n = (i: number) => parseInt(hex.slice(i, i + 2), 16);
  return { r: n(0), g: n(2), b: n(4), a: hex.length === 8 ? n(6) : 255 };
}

/** The colour as seen over white (SPEC 2.11 rule 4: alpha is composited onto white). */
export function overWhite(colour: Rgba): Rgba {
  const k = colour.a / 255;
  const mix = (c: number) => Math.round(c * k + 255 * (1 - k));
  return { r: mix(colour.r), g: mix(colour.g), b: mix(colour.b), a: 255 };
}

/** A CSS colour for satori: `rgb()` when opaque, `rgba()` otherwise. */
export function cssColour(colour: Rgba): string {
  return colour.a === 255
    ? `rgb(${colour.r}, ${colour.g}, ${colour.b})`
    : `rgba(${colour.r}, ${colour.g}, ${colour.b}, ${(colour.a / 255).toFixed(3)})`;
}

/** Luma (BT.601), the grey the push pipeline uses. */
export function luma(colour: Rgba): number {
  return (299 * colour.r + 587 * colour.g + 114 * colour.b) / 1000;
}
