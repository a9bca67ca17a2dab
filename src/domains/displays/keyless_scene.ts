/**
 * The screen a claimed display gets when it polls without its key and its owner has not turned on
 * `keyless` (CONTRACT.md "Displays that send no key"), as a Scene v1 like the claim screen: the two
 * ways to make it show its pictures. The same for every display (it names no MAC or device), so it
 * is drawn once.
 */
import { line } from "./claim_scene.ts";

/** A text element of the screen, left-aligned unless `properties` says otherwise. */
function text(
  id: string,
  value: string,
  frame: { y: number; height: number },
  properties: Record<string, unknown>,
) {
  return line(id, value, frame, { align: "leading", ...properties });
}

/** The key-less help screen as a Scene (800x480): what happened, then each way out. */
export function keylessScene(base: string) {
  return {
    version: 1,
    viewport: { width: 800, height: 480 },
    elements: [
      text("what", "This display sent no key", { y: 28, height: 48 }, {
        fontSize: 38,
        fontWeight: 700,
        align: "center",
      }),
      text(
        "why",
        "It belongs to someone who has not let it show pictures without its key. Its owner can:",
        { y: 88, height: 56 },
        { fontSize: 21, align: "center" },
      ),
      {
        id: "rule",
        type: "shape",
        frame: { x: 48, y: 156, width: 704, height: 4 },
        properties: { fill: "#000000" },
      },
      text("key", "1. Give the client its key", { y: 176, height: 32 }, {
        fontSize: 24,
        fontWeight: 700,
      }),
      text(
        "key-how",
        "GET /api/setup with the header ID: <its MAC>, claim the code it answers, and set its " +
          "api_key in the client (TRMNL_API_KEY, or apikey.txt on a Kindle).",
        { y: 210, height: 56 },
        { fontSize: 19 },
      ),
      text("keyless", "2. Or let it poll by its MAC alone", { y: 284, height: 32 }, {
        fontSize: 24,
        fontWeight: 700,
      }),
      text(
        "keyless-how",
        'PUT /api/devices/{id}/display-profile {"keyless": true}. Anyone who knows the MAC ' +
          "then sees what it shows.",
        { y: 318, height: 56 },
        { fontSize: 19 },
      ),
      text("where", `At ${base}`, { y: 410, height: 36 }, { fontSize: 22, align: "center" }),
    ],
  };
}
