/**
 * Scene elements → the satori tree the templates also go through (ARCHITECTURE.md: one raster
 * core). Every element is an absolutely placed box in viewport units, in document order, so
 * later elements paint over earlier ones (SPEC 2.11 rule 3). Unknown types are skipped (rule 6).
 */
import { FONT_FAMILY } from "../layout/fonts.ts";
import type { LayoutNode } from "../layout/html.ts";
import type { Box } from "../layout/place.ts";
import { cssColour, luma, overWhite, parseHex, type Rgba } from "./colour.ts";
import type { Frame, SceneData, SceneElement } from "./types.ts";

/** A prepared picture: its data URI and where it is drawn (viewport units). */
export interface PlacedPicture {
  src: string;
  dest: Box;
}

/** What the tree builder needs besides the Scene. */
export interface SceneTreeOptions {
  /** 1-bit output: text is drawn pure black or white, so it is never dithered. */
  monochrome: boolean;
  /** The picture of an image element, or undefined to draw nothing for it. */
  picture: (element: SceneElement, index: number) => PlacedPicture | undefined;
}

/** Line height as a multiple of the font size (docs/render.md). */
export const LINE_HEIGHT = 1.25;

const ALIGN = { leading: "left", center: "center", trailing: "right" } as const;

const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 255 };
const BLACK: Rgba = { r: 0, g: 0, b: 0, a: 255 };

/** The Scene background as an opaque colour: its alpha composited onto white (rule 4). */
export function backgroundOf(scene: SceneData): Rgba {
  return overWhite(parseHex(scene.background) ?? WHITE);
}

function place(frame: Frame): Record<string, number | string> {
  return {
    position: "absolute",
    left: frame.x,
    top: frame.y,
    width: frame.width,
    height: frame.height,
  };
}

function textNode(frame: Frame, props: Record<string, unknown>, monochrome: boolean): LayoutNode {
  const fontSize = (props.fontSize as number | undefined) ?? 16;
  const weight = (props.fontWeight as number | undefined) ?? 400;
  let colour = parseHex(props.color) ?? BLACK;
  // 1-bit: the colour's nearer of black and white, so glyph edges are never dithered.
  if (monochrome) colour = luma(colour) < 128 ? BLACK : WHITE;
  const lineHeight = fontSize * LINE_HEIGHT;
  const lines = Math.max(1, Math.floor(frame.height / lineHeight));
  return {
    type: "div",
    props: {
      style: {
        ...place(frame),
        display: "block",
        fontFamily: FONT_FAMILY,
        fontSize,
        // SPEC 2.11: below 600 regular, 600 and above bold.
        fontWeight: weight >= 600 ? 700 : 400,
        color: cssColour(colour),
        textAlign: ALIGN[props.align as keyof typeof ALIGN] ?? "left",
        lineHeight: `${lineHeight}px`,
        // Rule: overflow is clipped and ends with an ellipsis; as many lines as the frame holds.
        lineClamp: lines,
        whiteSpace: "pre-wrap",
        wordBreak: "break-word",
        // A frame lower than one line clips the line (a mask; only then, as masks are slow).
        ...(lineHeight > frame.height ? { overflow: "hidden" } : {}),
      },
      children: props.text as string,
    },
  };
}

function shapeNode(frame: Frame, props: Record<string, unknown>): LayoutNode {
  const fill = parseHex(props.fill) ?? BLACK;
  const half = Math.min(frame.width, frame.height) / 2;
  const stroke = props.strokeColor === null ? undefined : parseHex(props.strokeColor);
  // The stroke lies inside the frame (border-box), so a shape never grows past its frame.
  const strokeWidth = Math.min((props.strokeWidth as number | undefined) ?? 0, half);
  const radius = props.shapeType === "ellipse"
    ? "50%"
    : Math.min((props.cornerRadius as number | undefined) ?? 0, half);
  return {
    type: "div",
    props: {
      style: {
        ...place(frame),
        boxSizing: "border-box",
        backgroundColor: cssColour(fill),
        ...(radius ? { borderRadius: radius } : {}),
        ...(stroke && strokeWidth > 0
          ? { border: `${strokeWidth}px solid ${cssColour(stroke)}` }
          : {}),
      },
    },
  };
}

/** Builds the tree of a normalised Scene, laid out in a viewport-sized box. */
export function sceneTree(scene: SceneData, options: SceneTreeOptions): LayoutNode {
  const children: LayoutNode[] = [];
  scene.elements.forEach((element, index) => {
    const { frame, properties = {} } = element;
    if (!frame) return;
    if (element.type === "text") children.push(textNode(frame, properties, options.monochrome));
    else if (element.type === "shape") children.push(shapeNode(frame, properties));
    else if (element.type === "image") {
      const picture = options.picture(element, index);
      if (!picture) return;
      const { dest } = picture;
      children.push({
        type: "img",
        props: {
          src: picture.src,
          width: dest.width,
          height: dest.height,
          style: {
            position: "absolute",
            left: dest.x,
            top: dest.y,
            width: dest.width,
            height: dest.height,
          },
        },
      });
    }
  });
  return {
    type: "div",
    props: {
      style: {
        display: "flex",
        position: "relative",
        width: scene.viewport.width,
        height: scene.viewport.height,
        backgroundColor: cssColour(backgroundOf(scene)),
      },
      children,
    },
  };
}
