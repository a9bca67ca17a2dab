/**
 * Request inputs of the targetless endpoints (SPEC 4.7, CONTRACT.md "Targetless contents"): the
 * zod schemas that check types and document the API, and the per-mode rules (a 400
 * `invalid_request` for each mismatch) as a pure function.
 */
import { z } from "zod";
import { jsonInteger } from "../../infra/lib/json_number.ts";
import { uuidParam } from "../../infra/lib/params.ts";
import { badRequest } from "../../errors.ts";
import { withExample } from "../../infra/http/operation.ts";
import { COLOR_MODES, FORMATS, MAX_SIDE } from "./output_profile.ts";
import { checkLinkSyntax } from "../../infra/outbound/fetch_link.ts";

/** Limits of one content (docs/decisions.md, targetless). */
export const CONTENT_LIMITS = {
  assets: 20,
  images: 10,
  links: 5,
  /** Characters (code points) of one text asset and of all of them together. */
  text: 20_000,
  intent: 2_000,
  title: 200,
  url: 2_048,
  filename: 255,
} as const;

const side = jsonInteger((n) =>
  n.min(1, `must be at least 1`).max(MAX_SIDE, `must be at most ${MAX_SIDE}`)
);

export const outputInput = z.object({
  preset: z.string().max(64).nullable().optional(),
  viewport: z.object({ width: side, height: side }).strict().nullable().optional(),
  formats: z.array(z.enum(FORMATS)).optional(),
  colorMode: z.enum(COLOR_MODES).optional(),
}).strict();

export const assetInput = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }).strict(),
  z.object({ type: z.literal("link"), url: z.string().max(CONTENT_LIMITS.url) }).strict(),
  z.object({
    type: z.literal("image"),
    contentType: z.enum(["image/png", "image/jpeg"], {
      message: "must be image/png or image/jpeg",
    }),
    sizeBytes: jsonInteger((n) => n.min(1, "must be at least 1")),
    filename: z.string().max(CONTENT_LIMITS.filename).optional(),
  }).strict(),
]);

export const createContentInput = withExample(
  z.object({
    mode: z.enum(["auto", "hardcode", "manual"]),
    intent: z.string().optional(),
    title: z.string().optional(),
    output: outputInput.nullable().optional(),
    displayId: uuidParam.nullable().optional(),
    assets: z.array(assetInput).max(CONTENT_LIMITS.assets).optional(),
  }).strict(),
  // `hardcode`: the mode every plan may create (`auto` is pro); README's example.
  {
    mode: "hardcode",
    title: "Misty morning",
    output: { preset: "macos-widget-small" },
    assets: [{ type: "image", contentType: "image/jpeg", sizeBytes: 25304, filename: "misty.jpg" }],
  },
);

export type CreateContentInput = z.infer<typeof createContentInput>;
export type AssetInput = z.infer<typeof assetInput>;

const length = (text: string) => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

/**
 * SPEC 4.7 per-mode table and CONTRACT.md asset rules; throws 400 `invalid_request`.
 *
 * | mode | displayId | output | assets |
 * | auto | forbidden | required | text, link, image (or none, with an intent) |
 * | hardcode | forbidden | required | exactly one image |
 * | manual | required | forbidden | one image, or text only |
 */
export function checkModeRules(input: CreateContentInput): void {
  const hasOutput = input.output !== undefined && input.output !== null;
  const hasDisplay = input.displayId !== undefined && input.displayId !== null;
  const assets = input.assets ?? [];
  const count = (type: AssetInput["type"]) => assets.filter((a) => a.type === type).length;
  if (input.mode === "manual") {
    if (hasOutput) throw badRequest("mode manual takes no output (it is display-bound)");
    if (!hasDisplay) throw badRequest("mode manual needs a displayId");
    const images = count("image");
    if (count("link") > 0) throw badRequest("mode manual takes an image asset or text assets");
    if (images > 1 || (images === 1 && assets.length > 1)) {
      throw badRequest("mode manual takes one image asset, or text assets only");
    }
    if (assets.length === 0) throw badRequest("mode manual needs an image asset or text assets");
  } else {
    if (hasDisplay) {
      throw badRequest(
        `mode ${input.mode} takes no displayId (output selects the targetless branch)`,
      );
    }
    if (!hasOutput) throw badRequest(`mode ${input.mode} needs an output profile`);
    if (input.mode === "hardcode" && (assets.length !== 1 || count("image") !== 1)) {
      throw badRequest("mode hardcode takes exactly one image asset (PNG or JPEG)");
    }
    if (
      input.mode === "auto" && assets.length === 0 && !(input.intent ?? "").trim() &&
      !(input.title ?? "").trim()
    ) throw badRequest("mode auto needs an intent, a title or at least one asset");
  }
  if (count("image") > CONTENT_LIMITS.images) {
    throw badRequest(`At most ${CONTENT_LIMITS.images} image assets are allowed`);
  }
  if (count("link") > CONTENT_LIMITS.links) {
    throw badRequest(`At most ${CONTENT_LIMITS.links} link assets are allowed`);
  }
  let text = 0;
  assets.forEach((asset, i) => {
    if (asset.type === "text") {
      if (!asset.text.trim()) throw badRequest(`assets.${i}.text must not be empty`);
      text += length(asset.text);
    }
    if (asset.type === "link") {
      const problem = checkLinkSyntax(asset.url);
      if (problem) throw badRequest(`assets.${i}.url: ${problem}`);
    }
  });
  if (text > CONTENT_LIMITS.text) {
    throw badRequest(`Text assets hold ${text} characters; at most ${CONTENT_LIMITS.text}`);
  }
  if (length(input.intent ?? "") > CONTENT_LIMITS.intent) {
    throw badRequest(`intent is longer than ${CONTENT_LIMITS.intent} characters`);
  }
  if (length(input.title ?? "") > CONTENT_LIMITS.title) {
    throw badRequest(`title is longer than ${CONTENT_LIMITS.title} characters`);
  }
}

// Printable ASCII is 0x20-0x7e: the space counts (SPEC 8, docs/decisions.md).
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{8,128}$/;

/** The Idempotency-Key header: undefined when absent, 400 when malformed (SPEC 8). */
export function idempotencyKeyOf(headers: Headers): string | undefined {
  const key = headers.get("idempotency-key");
  if (key === null) return undefined;
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw badRequest("Idempotency-Key must be 8-128 printable ASCII characters");
  }
  return key;
}

/** The Idempotency-Key request header, for the OpenAPI document. */
export const idempotencyHeader = z.object({
  "idempotency-key": z.string().min(8).max(128).optional().meta({
    description: "8-128 printable ASCII characters; a repeat with the same body answers the " +
      "first result, with another body 409",
  }),
});
