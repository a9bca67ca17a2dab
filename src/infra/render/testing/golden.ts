/**
 * Golden-image assertions for the render tests: a rendering is compared pixel for pixel with a
 * committed PNG, so any change to what a template or Scene looks like fails a test until the
 * golden is updated on purpose: `deno task goldens:update` (UPDATE_GOLDENS=1) rewrites them.
 * Test-only: it reads the environment, which service code leaves to config.ts.
 */
import { decode } from "fast-png";

/** True when the run should rewrite goldens instead of comparing. */
export function updatingGoldens(): boolean {
  return Deno.env.get("UPDATE_GOLDENS") === "1";
}

/** Compares `png` with the golden at `golden` (decoded pixels, not bytes). */
export async function assertGolden(png: Uint8Array, golden: URL): Promise<void> {
  if (updatingGoldens()) {
    await Deno.writeFile(golden, png);
    return;
  }
  let expected: Uint8Array;
  try {
    expected = await Deno.readFile(golden);
  } catch {
    throw new Error(`No golden image at ${golden.pathname}; run deno task goldens:update`);
  }
  const a = decode(png);
  const b = decode(expected);
  const shape = (p: typeof a) => `${p.width}x${p.height} ${p.channels}ch ${p.depth}bit`;
  let message: string | undefined;
  if (shape(a) !== shape(b)) message = `is ${shape(a)}, golden is ${shape(b)}`;
  else {
    let differing = 0;
    for (let i = 0; i < a.data.length; i++) if (a.data[i] !== b.data[i]) differing++;
    if (differing) message = `differs from the golden in ${differing} of ${a.data.length} samples`;
  }
  if (!message) return;
  const actual = await Deno.makeTempFile({ prefix: "golden-actual-", suffix: ".png" });
  await Deno.writeFile(actual, png);
  throw new Error(
    `Rendering ${message} (${golden.pathname}); actual written to ${actual}. ` +
      "If the change is intended, run deno task goldens:update and review the new PNGs",
  );
}
