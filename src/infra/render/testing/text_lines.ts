/**
 * How many lines the renderer draws of a Scene text, with no line clamp: the text element's own
 * box (same font, size, weight, wrapping) is laid out by satori above a marker, and the marker's
 * position is the text's height. Test-only: it lets a layout that predicts line breaks be checked
 * against the layout engine itself.
 */
import { layoutSvg } from "../layout/engine.ts";
import type { LayoutNode } from "../layout/html.ts";
import { LINE_HEIGHT, sceneTree } from "../scene/tree.ts";

const MARKER = "#ff00ff";
const TALL = 8000;

/** The lines satori makes of `text` in a `width`-wide text element of the given size and weight. */
export async function renderedLines(
  text: string,
  width: number,
  fontSize: number,
  fontWeight = 400,
): Promise<number> {
  const frame = { x: 0, y: 0, width, height: TALL };
  const tree = sceneTree({
    version: 1,
    viewport: { width, height: TALL },
    elements: [{ id: "t", type: "text", frame, properties: { text, fontSize, fontWeight } }],
  }, { monochrome: false, picture: () => undefined });
  const node = (tree.props.children as LayoutNode[])[0];
  // The element's style without its place and clamp: it grows to the height of its lines.
  const { position: _, left: _l, top: _t, height: _h, lineClamp: _c, ...style } = node.props
    .style!;
  const column: LayoutNode = {
    type: "div",
    props: {
      style: { display: "flex", flexDirection: "column", width, height: TALL },
      children: [
        { ...node, props: { ...node.props, style } },
        { type: "div", props: { style: { width: 2, height: 2, backgroundColor: MARKER } } },
      ],
    },
  };
  const svg = await layoutSvg(column, width, TALL);
  const match = svg.match(new RegExp(`<rect[^>]*\\sy="([\\d.]+)"[^>]*fill="${MARKER}"`));
  if (!match) throw new Error("The marker was not laid out");
  return Math.round(Number(match[1]) / Math.round(fontSize * LINE_HEIGHT));
}
