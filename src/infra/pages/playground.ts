/**
 * `GET /playground`: a page for the two render formats people write by hand, a Scene v1 document
 * (rendered by `POST {surface}/scenes/preview`) and a push template's variables (`POST
 * /api/templates/{name}/preview`). A static page: it calls the API from the browser with the
 * token the user pastes, and the service stores nothing for it.
 */
import { z } from "zod";
import { AppError } from "../../errors.ts";
import { defineRawRoute, json, publicRoute, type RawRoute } from "../http/raw.ts";
import { templateRegistry } from "../render/templates/registry.ts";
import { type Asset, assetResponse, ownAsset, pageHeaders, TYPES } from "./assets.ts";

const PAGE = ownAsset("playground.html", "text/html; charset=utf-8");
const ASSETS: Record<string, Asset> = {
  "playground.js": ownAsset("playground.js", TYPES.js),
  "playground.css": ownAsset("playground.css", TYPES.css),
  "pages.css": ownAsset("pages.css", TYPES.css),
};
const SAMPLE_SCENE = ownAsset("sample_scene.json", TYPES.json);

let samples: Promise<unknown> | undefined;

/** The page's starting points: a Scene and each template's sample variables. */
function samplesJson(): Promise<unknown> {
  samples ??= (async () => {
    const registry = templateRegistry();
    return {
      scene: JSON.parse(await Deno.readTextFile(SAMPLE_SCENE.url)),
      templates: registry.list().map(({ name, title, description }) => ({
        name,
        title,
        description,
        sample: registry.get(name)!.sample,
      })),
    };
  })();
  return samples;
}

export const playgroundRoutes: RawRoute[] = [
  defineRawRoute({
    method: "GET",
    path: "/playground",
    operationId: "pages-playground",
    summary: "Render playground for Scenes and push templates",
    tags: ["pages"],
    auth: publicRoute,
    responses: { 200: { description: "The HTML page", content: { "text/html": z.string() } } },
    handle: () => assetResponse(PAGE),
  }),
  defineRawRoute({
    method: "GET",
    path: "/playground/{file}",
    operationId: "pages-playgroundAsset",
    summary: "A file of the render playground",
    tags: ["pages"],
    auth: publicRoute,
    params: z.object({ file: z.string().max(64) }),
    responses: {
      200: {
        description: "The file: script, style sheet, or `samples.json` (a Scene and each " +
          "template's sample variables)",
        content: {
          "text/javascript": z.string(),
          "text/css": z.string(),
          "application/json": z.object({}).loose(),
        },
      },
      404: { description: "No such file" },
    },
    async handle({ params }) {
      if (params.file === "samples.json") {
        return json(await samplesJson(), 200, pageHeaders(TYPES.json));
      }
      const asset = Object.hasOwn(ASSETS, params.file) ? ASSETS[params.file] : undefined;
      if (!asset) throw new AppError("not_found", "Not found");
      return assetResponse(asset);
    },
  }),
];
