/** The push formats (SPEC 4.5) from a layout's grey frame: text crisp, pictures dithered. */
import type { DitherKernel } from "../dither.ts";
import { encodePng1Bit } from "../png.ts";
import type { PushBitmaps } from "../types.ts";
import { composePacked } from "./compose.ts";

/**
 * `image.png` and `image2.raw` from the 2-level composition, `image4.raw` from the 4-level one of
 * the same grey frame and kernel (not derived from the 1-bit one).
 */
export function layoutBitmaps(
  grey: Uint8Array,
  width: number,
  height: number,
  kernel: DitherKernel,
): PushBitmaps {
  const { raw2, raw4 } = composePacked(grey, width, height, kernel);
  return { png: encodePng1Bit(raw2, width, height), raw2, raw4 };
}
