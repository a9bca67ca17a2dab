/**
 * Where a drawn page's pictures are: the boxes the render pool error-diffuses, while everything
 * else (text, rules, flat fills) goes to its nearest grey level and stays crisp. And the page
 * made still before its screenshot (`settlePage`), as Playwright's `animations: "disabled"` and
 * `caret: "hide"` do, in the same call as the pictures are measured (one round trip, not three).
 */

/** A picture's box in page pixels, clipped to the viewport. */
export interface PictureBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Runs inside the page (`page.evaluate`), after layout: the boxes of `img`, `canvas`, `video`,
 * outermost `svg`, `picture`, `object`/`embed` elements and of elements whose background is an
 * image (`url(...)`; gradients are fills, drawn crisp); at most 256 (the rest are drawn like
 * text). Self-contained: it is serialised.
 */
export function collectPictures(): PictureBox[] {
  // The page's globals: this module is type-checked without the DOM library.
  // deno-lint-ignore no-explicit-any
  const page = globalThis as any;
  const doc = page.document;
  const max = 256;
  const tags = new Set(["IMG", "CANVAS", "VIDEO", "PICTURE", "OBJECT", "EMBED"]);
  const width: number = doc.documentElement.clientWidth;
  const height: number = doc.documentElement.clientHeight;
  const boxes: PictureBox[] = [];
  for (const element of doc.querySelectorAll("body *")) {
    if (boxes.length >= max) break;
    const svg = element instanceof page.SVGSVGElement && element.ownerSVGElement === null;
    if (
      !svg && !tags.has(element.tagName) &&
      !/url\(/.test(page.getComputedStyle(element).backgroundImage)
    ) continue;
    const rect = element.getBoundingClientRect();
    const x = Math.max(0, Math.floor(rect.left));
    const y = Math.max(0, Math.floor(rect.top));
    const right = Math.min(width, Math.ceil(rect.right));
    const bottom = Math.min(height, Math.ceil(rect.bottom));
    if (right > x && bottom > y) boxes.push({ x, y, width: right - x, height: bottom - y });
  }
  return boxes;
}

/**
 * Runs inside the page (`page.evaluate`), after `load`: makes it still for its screenshot, the
 * way Playwright's `screenshot({animations: "disabled", caret: "hide"})` does. Finite CSS and Web
 * animations and transitions jump to their end, infinite ones are cancelled (their first
 * frame), and so are those that start later; text fields' carets are transparent; then it waits
 * for the page's fonts. Self-contained: it is serialised.
 */
export async function settlePage(): Promise<void> {
  // deno-lint-ignore no-explicit-any
  const page = globalThis as any;
  const doc = page.document;
  const still = () => {
    for (const animation of doc.getAnimations()) {
      if (!animation.effect || animation.playbackRate === 0) continue;
      try {
        if (Number.isFinite(animation.effect.getComputedTiming().endTime)) animation.finish();
        else animation.cancel();
      } catch {
        // An animation that cannot finish (e.g. paused at a zero rate) stays.
      }
    }
  };
  // A page that broke these APIs for itself is drawn as it is, never refused for it.
  try {
    still();
    doc.addEventListener("transitionrun", still);
    doc.addEventListener("animationstart", still);
    for (const field of doc.querySelectorAll("input,textarea,[contenteditable]")) {
      field.style.setProperty("caret-color", "transparent", "important");
    }
    await doc.fonts.ready;
  } catch {
    // As above.
  }
}

/** `settlePage` then `collectPictures`, as one expression for `page.evaluate`. */
export const SETTLE_AND_COLLECT =
  `(async () => { await (${settlePage.toString()})(); return (${collectPictures.toString()})(); })()`;
