/** Scene v1 (SPEC 2.11) as the renderer reads it, after normalisation. */

/** The media type of a Scene document (SPEC 2.11, 9.3). */
export const SCENE_MEDIA_TYPE = "application/vnd.service.scene+json;version=1";

/** Output colour modes of a rendition (SPEC 2.10). */
export type ColorMode = "color" | "grayscale" | "monochrome";

/** How a rendition maps the Scene onto its size (SPEC 4.7 PNG scale rules). */
export type SceneMode = "auto" | "hardcode";

/** A frame in viewport units: integers, positive size (SPEC 2.11 rule 1). */
export interface Frame {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One element as stored: the known fields checked, anything else kept as it came. */
export interface SceneElement {
  id: string;
  type: string;
  frame?: Frame;
  properties?: Record<string, unknown>;
  [extra: string]: unknown;
}

/** The `data` of a Scene envelope. */
export interface SceneData {
  version: 1;
  viewport: { width: number; height: number };
  background?: string;
  elements: SceneElement[];
  [extra: string]: unknown;
}

/** The envelope stored on a Presentation (SPEC 2.11). */
export interface SceneEnvelope {
  mediaType: typeof SCENE_MEDIA_TYPE;
  version: 1;
  data: SceneData;
}

/** Limits that keep one Scene's validation and render bounded. */
export const SCENE_LIMITS = {
  /** SPEC 2.10: viewport sides are integers in 1..8192. */
  maxSide: 8192,
  /** SPEC 8: pixels per rendition (the default of TARGETLESS_MAX_RENDITION_PIXELS). */
  maxPixels: 4_000_000,
  elements: 1000,
  idLength: 128,
  textLength: 10_000,
  fileIdLength: 256,
  /** Frames may lie partly or wholly outside the viewport (rule 4), but not absurdly far. */
  maxCoordinate: 1_000_000,
  /** Nesting of unknown properties, so a hostile document cannot exhaust the stack. */
  maxDepth: 32,
} as const;
