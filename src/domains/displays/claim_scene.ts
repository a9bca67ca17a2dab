/**
 * The claim screen a pending display shows, as a Scene v1 (docs/render.md): drawn by the render
 * pool's Scene renderer, so its code can be set far larger than a push template's headline.
 */

/**
 * A line of text of the service's own screens (a Scene v1 element, docs/render.md), centred
 * unless `properties` says otherwise.
 */
export function line(
  id: string,
  text: string,
  frame: { y: number; height: number },
  properties: Record<string, unknown>,
) {
  return {
    id,
    type: "text",
    frame: { x: 48, width: 704, ...frame },
    properties: { text, color: "#000000", align: "center", ...properties },
  };
}

/**
 * The claim screen as a Scene (800x480): the code set at 112 px (three times the old headline's),
 * to read across a room; where to claim it (the console at the service's URL); how long it holds; the API call on a line of its own.
 */
export function claimScene(code: string, base: string) {
  return {
    version: 1,
    viewport: { width: 800, height: 480 },
    elements: [
      line("what", "Claim this display", { y: 28, height: 40 }, { fontSize: 28, fontWeight: 700 }),
      // Six of the widest letters (WMWMWM) still fit the width on one line.
      line("code", code, { y: 84, height: 150 }, { fontSize: 112, fontWeight: 700 }),
      {
        id: "rule",
        type: "shape",
        frame: { x: 48, y: 258, width: 704, height: 4 },
        properties: { fill: "#000000" },
      },
      line("where", `Sign in at ${base}/ and enter this code under Claim a display`, {
        y: 278,
        height: 72,
      }, { fontSize: 26 }),
      line(
        "valid",
        "The code is valid for 24 hours; this screen changes once the display is yours",
        { y: 368, height: 30 },
        { fontSize: 19 },
      ),
      line(
        "api",
        `API: POST /api/devices/claim {"code":"${code}"}`,
        { y: 420, height: 26 },
        { fontSize: 17 },
      ),
    ],
  };
}
