/**
 * The one validator and normaliser of Scene v1 (SPEC 2.11), used before a Scene is stored and
 * again by the renderer. Rules: integer frames with a positive size (1); unique ids (2); an
 * invalid value of an optional property degrades to its default, a missing or unusable required
 * field is a 400 (5); unknown optional properties and unknown element types are kept (6; the
 * renderer skips them); no secret is ever stored (7, `secrets.ts`).
 */
import { AppError } from "../../../errors.ts";
import { isHexColour } from "./colour.ts";
import { findSecret } from "./secrets.ts";
import {
  type Frame,
  SCENE_LIMITS,
  SCENE_MEDIA_TYPE,
  type SceneData,
  type SceneElement,
  type SceneEnvelope,
} from "./types.ts";

/** A normalised Scene, or why it cannot be stored (a 400 `invalid_request` message). */
export type SceneResult = { ok: true; scene: SceneData } | { ok: false; message: string };

/** Options of the normaliser. */
export interface NormaliseOptions {
  /** Pixel limit of the viewport; default SPEC 8's 4,000,000 (TARGETLESS_MAX_RENDITION_PIXELS). */
  maxPixels?: number;
}

class Invalid extends Error {}

const fail = (message: string): never => {
  throw new Invalid(message);
};

type Obj = Record<string, unknown>;

const isObject = (value: unknown): value is Obj =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isNumber = (value: unknown): value is number =>
  typeof value === "number" && Number.isFinite(value);

/** Text, image and shape: the element types Scene v1 defines. */
export const KNOWN_TYPES = new Set(["text", "image", "shape"]);

function frameOf(value: unknown, at: string): Frame {
  if (value === undefined) fail(`Scene ${at}.frame is required`);
  if (!isObject(value)) fail(`Scene ${at}.frame must be an object`);
  const frame = value as Obj;
  const max = SCENE_LIMITS.maxCoordinate;
  for (const key of ["x", "y"] as const) {
    const v = frame[key];
    if (v === undefined) fail(`Scene ${at}.frame.${key} is required`);
    if (!Number.isInteger(v) || Math.abs(v as number) > max) {
      fail(`Scene ${at}.frame.${key} must be an integer between -${max} and ${max}`);
    }
  }
  for (const key of ["width", "height"] as const) {
    const v = frame[key];
    if (v === undefined) fail(`Scene ${at}.frame.${key} is required`);
    if (!Number.isInteger(v) || (v as number) < 1 || (v as number) > max) {
      fail(`Scene ${at}.frame.${key} must be a positive integer up to ${max}`);
    }
  }
  return frame as unknown as Frame;
}

/** Replaces `props[key]` by `fallback` when present and not `valid` (rule 5: degrade). */
function degrade(props: Obj, key: string, valid: (v: unknown) => boolean, fallback: unknown) {
  if (key in props && !valid(props[key])) props[key] = fallback;
}

function oneOf(...values: unknown[]) {
  return (v: unknown) => values.includes(v);
}

function requiredString(props: Obj, key: string, at: string, max: number, nonEmpty: boolean) {
  const v = props[key];
  if (v === undefined || v === null) fail(`Scene ${at}.properties.${key} is required`);
  if (typeof v !== "string" || (nonEmpty && v === "")) {
    fail(`Scene ${at}.properties.${key} must be a ${nonEmpty ? "non-empty " : ""}string`);
  }
  if ((v as string).length > max) {
    fail(`Scene ${at}.properties.${key} is longer than ${max} characters`);
  }
}

function normaliseProperties(type: string, props: Obj, at: string): void {
  if (type === "text") {
    requiredString(props, "text", at, SCENE_LIMITS.textLength, false);
    degrade(props, "fontSize", (v) => isNumber(v) && v > 0 && v <= 1000, 16);
    degrade(props, "fontWeight", (v) => isNumber(v) && v >= 1 && v <= 1000, 400);
    degrade(props, "color", isHexColour, "#000000");
    degrade(props, "align", oneOf("leading", "center", "trailing"), "leading");
  } else if (type === "image") {
    // SPEC 2.11: API responses carry a signed `url`; the stored Scene keeps only `fileId`, so a
    // Scene read back and sent again loses its URLs instead of storing a presigned link.
    delete props.url;
    requiredString(props, "fileId", at, SCENE_LIMITS.fileIdLength, true);
    degrade(props, "fit", oneOf("contain", "cover", "fill", "stretch"), "contain");
  } else if (type === "shape") {
    degrade(props, "shapeType", oneOf("rect", "ellipse"), "rect");
    degrade(props, "fill", isHexColour, "#000000");
    degrade(props, "cornerRadius", (v) => isNumber(v) && v >= 0, 0);
    degrade(props, "strokeColor", (v) => v === null || isHexColour(v), null);
    degrade(props, "strokeWidth", (v) => isNumber(v) && v >= 0, 0);
  }
}

function normaliseElement(value: unknown, index: number, ids: Map<string, number>): SceneElement {
  const at = `elements[${index}]`;
  if (!isObject(value)) return fail(`Scene ${at} must be an object`);
  const { id, type } = value;
  if (id === undefined) fail(`Scene ${at}.id is required`);
  if (typeof id !== "string" || id === "" || id.length > SCENE_LIMITS.idLength) {
    fail(`Scene ${at}.id must be a string of 1 to ${SCENE_LIMITS.idLength} characters`);
  }
  const seen = ids.get(id as string);
  if (seen !== undefined) {
    fail(`Scene element id ${JSON.stringify(id)} is used by elements[${seen}] and ${at}`);
  }
  ids.set(id as string, index);
  if (type === undefined) fail(`Scene ${at}.type is required`);
  if (typeof type !== "string" || type === "") fail(`Scene ${at}.type must be a string`);
  // Rule 6: an element type this version does not know is kept as it came and not drawn.
  if (!KNOWN_TYPES.has(type as string)) return value as SceneElement;
  frameOf(value.frame, at);
  if (value.properties === undefined) fail(`Scene ${at}.properties is required`);
  if (!isObject(value.properties)) fail(`Scene ${at}.properties must be an object`);
  normaliseProperties(type as string, value.properties as Obj, at);
  return value as SceneElement;
}

function normaliseData(data: Obj, options: NormaliseOptions): SceneData {
  if (data.version === undefined) fail("Scene version is required");
  if (data.version !== 1) {
    fail(`Scene version ${JSON.stringify(data.version)} is not supported; use 1`);
  }
  const viewport = data.viewport;
  if (viewport === undefined) fail("Scene viewport is required");
  if (!isObject(viewport)) fail("Scene viewport must be an object");
  const { width, height } = viewport as Obj;
  for (const [key, v] of [["width", width], ["height", height]] as const) {
    if (v === undefined) fail(`Scene viewport.${key} is required`);
    if (!Number.isInteger(v) || (v as number) < 1 || (v as number) > SCENE_LIMITS.maxSide) {
      fail(`Scene viewport.${key} must be an integer from 1 to ${SCENE_LIMITS.maxSide}`);
    }
  }
  const maxPixels = options.maxPixels || SCENE_LIMITS.maxPixels;
  if ((width as number) * (height as number) > maxPixels) {
    fail(`Scene viewport ${width}x${height} is over ${maxPixels} pixels`);
  }
  degrade(data, "background", isHexColour, "#FFFFFF");
  if (data.elements === undefined) fail("Scene elements is required");
  if (!Array.isArray(data.elements)) fail("Scene elements must be an array");
  const elements = data.elements as unknown[];
  if (elements.length > SCENE_LIMITS.elements) {
    fail(`Scene has ${elements.length} elements; at most ${SCENE_LIMITS.elements} are allowed`);
  }
  const ids = new Map<string, number>();
  data.elements = elements.map((element, i) => normaliseElement(element, i, ids));
  return data as SceneData;
}

/**
 * Checks and normalises Scene `data`. The input is not modified: the result is a copy where
 * invalid optional values are replaced by their defaults and everything unknown is kept.
 */
export function normaliseScene(input: unknown, options: NormaliseOptions = {}): SceneResult {
  if (!isObject(input)) return { ok: false, message: "Scene data must be a JSON object" };
  let copy: Obj;
  try {
    copy = structuredClone(input);
  } catch {
    return { ok: false, message: "Scene data must be plain JSON" };
  }
  try {
    const scene = normaliseData(copy, options);
    // Rule 7, after `url` is dropped from image elements: checked on everything that is stored.
    const secret = findSecret(scene, SCENE_LIMITS.maxDepth);
    if (secret) {
      const where = secret.path ? ` at ${secret.path}` : "";
      return { ok: false, message: `Scene must not contain ${secret.kind}${where}` };
    }
    return { ok: true, scene };
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, message: error.message };
    throw error;
  }
}

/** `normaliseScene` for callers that answer HTTP: throws a 400 `invalid_request` AppError. */
export function parseScene(input: unknown, options: NormaliseOptions = {}): SceneData {
  const result = normaliseScene(input, options);
  if (!result.ok) throw new AppError("invalid_request", result.message);
  return result.scene;
}

/** Wraps normalised data in the stored envelope (SPEC 2.11). */
export function sceneEnvelope(data: SceneData): SceneEnvelope {
  return { mediaType: SCENE_MEDIA_TYPE, version: 1, data };
}

/** Checks a whole envelope `{mediaType, version: 1, data}` and normalises its data. */
export function normaliseSceneEnvelope(
  input: unknown,
  options: NormaliseOptions = {},
): { ok: true; envelope: SceneEnvelope } | { ok: false; message: string } {
  if (!isObject(input)) return { ok: false, message: "Scene must be a JSON object" };
  const mediaType = typeof input.mediaType === "string"
    ? input.mediaType.replace(/\s+/g, "").toLowerCase()
    : input.mediaType;
  if (mediaType !== SCENE_MEDIA_TYPE) {
    return { ok: false, message: `Scene mediaType must be ${SCENE_MEDIA_TYPE}` };
  }
  if (input.version !== 1) return { ok: false, message: "Scene version must be 1" };
  const result = normaliseScene(input.data, options);
  return result.ok ? { ok: true, envelope: sceneEnvelope(result.scene) } : result;
}
