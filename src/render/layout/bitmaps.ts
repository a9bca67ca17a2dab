/** The push formats (SPEC 4.5) from a layout's grey frame: text crisp, pictures dithered. */
import { pack1bpp, pack2bpp } from "../pack.ts";
import { encodePng1Bit } from "../png.ts";
import type { PushBitmaps } from "../types.ts";
import { composeLevels } from "./compose.ts";

/**
 * `image.png` and `image2.raw` from the 2-level composition, `image4.raw` from a separate
 * 4-level one of the same grey frame (as for uploaded images: not derived from the 1-bit one).
 */
export function layoutBitmaps(grey: Uint8Array, width: number, height: number): PushBitmaps {
  const raw2 = pack1bpp(composeLevels(grey, width, height, 2), width, height);
  const raw4 = pack2bpp(composeLevels(grey, width, height, 4), width, height);
  return { png: encodePng1Bit(raw2, width, height), raw2, raw4 };
}
