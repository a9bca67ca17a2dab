/**
 * `GET /`: the owner's console (issue 38, CONTRACT.md "The owner's console"). A static page and
 * its ES modules, run by the browser against the same public API a third-party client uses (user
 * tokens from `/auth/login`); the service keeps nothing for it. Its CSP allows scripts from this
 * origin only; API calls may also reach PUBLIC_BASE_URL, and uploads and pictures the bucket.
 */
import { z } from "zod";
import { AppError } from "../../errors.ts";
import { defineRawRoute, publicRoute, type RawRoute } from "../http/raw.ts";
import {
  apiOrigins,
  type Asset,
  assetResponse,
  htmlResponse,
  ownAsset,
  type PageOrigins,
  TYPES,
} from "./assets.ts";
import type { Config } from "../../config.ts";

const PAGE = ownAsset("console/index.html", "text/html; charset=utf-8");
const PROVIDERS = ["google", "apple"] as const;

let template: Promise<string> | undefined;

/**
 * The page, its `<body data-providers>` naming the identity providers whose sign-in is
 * configured, so the console offers those buttons only.
 */
async function page(configured: (provider: typeof PROVIDERS[number]) => boolean) {
  if (!template) {
    template = Deno.readTextFile(PAGE.url);
    // A failed read is not kept: the next request tries again.
    template.catch(() => (template = undefined));
  }
  const providers = PROVIDERS.filter(configured).join(" ");
  return (await template).replace('data-providers=""', `data-providers="${providers}"`);
}

/** The console's files, by the name it asks for them (`/console/{file}`). */
const FILES = [
  "app.js",
  "api.js",
  "ui.js",
  "session.js",
  "devices.js",
  "photo.js",
  "send.js",
  "plugins.js",
  "playlists.js",
  "account.js",
  "console.css",
];
const ASSETS: Record<string, Asset> = Object.fromEntries(
  FILES.map((
    name,
  ) => [name, ownAsset(`console/${name}`, name.endsWith(".css") ? TYPES.css : TYPES.js)]),
);

/**
 * Where the console's requests go besides its own origin: PUBLIC_BASE_URL (upload tickets and
 * signed picture URLs are made on it) and, with S3, the bucket a presigned upload posts to and
 * pictures are read from.
 */
function consoleOrigins(config: Config): PageOrigins {
  const origins = apiOrigins(config);
  if (config.s3) {
    origins.push(
      config.s3.endpoint ? new URL(config.s3.endpoint).origin : "https://*.amazonaws.com",
    );
  }
  return { connect: origins, img: origins };
}

export const consoleRoutes: RawRoute[] = [
  defineRawRoute({
    method: "GET",
    path: "/",
    operationId: "pages-console",
    summary: "The owner's console: claim displays, push photos, edit plugins",
    tags: ["pages"],
    auth: publicRoute,
    responses: { 200: { description: "The HTML page", content: { "text/html": z.string() } } },
    handle: async ({ ctx }) =>
      htmlResponse(
        await page((provider) => ctx.services.oauth.webFlowConfigured(provider)),
        consoleOrigins(ctx.services.config),
      ),
  }),
  defineRawRoute({
    method: "GET",
    path: "/console/{file}",
    operationId: "pages-consoleAsset",
    summary: "A file of the owner's console",
    tags: ["pages"],
    auth: publicRoute,
    params: z.object({ file: z.string().max(64) }),
    responses: {
      200: {
        description: "The file: an ES module or the style sheet",
        content: { "text/javascript": z.string(), "text/css": z.string() },
      },
      404: { description: "No such file" },
    },
    handle({ params }) {
      const asset = Object.hasOwn(ASSETS, params.file) ? ASSETS[params.file] : undefined;
      if (!asset) throw new AppError("not_found", "Not found");
      return assetResponse(asset);
    },
  }),
];
