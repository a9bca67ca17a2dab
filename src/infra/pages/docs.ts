/**
 * `GET /docs`: the interactive API reference (Swagger UI from swagger-ui-dist, served by the
 * service itself) over the document of the same ingress: `/openapi.json` on the user ingress,
 * `/internal/factory/docs` over `/internal/factory/openapi.json` on the factory ingress, so the
 * factory console's operations appear only where the console is served. "Try it out" calls the
 * page's own origin with the bearer token pasted into "Authorize" (kept in the page's memory).
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
  packageAsset,
  TYPES,
} from "./assets.ts";

/** The files of the page, by the name it asks for them. */
const ASSETS: Record<string, Asset> = {
  "swagger-ui.css": packageAsset("swagger-ui-dist/swagger-ui.css", TYPES.css),
  "swagger-ui-bundle.js": packageAsset("swagger-ui-dist/swagger-ui-bundle.js", TYPES.js),
  "favicon-32x32.png": packageAsset("swagger-ui-dist/favicon-32x32.png", TYPES.png),
  "docs.js": ownAsset("docs.js", TYPES.js),
  "pages.css": ownAsset("pages.css", TYPES.css),
};

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(base: string, spec: string, title: string, note: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<link rel="icon" type="image/png" href="${base}/favicon-32x32.png">
<link rel="stylesheet" href="${base}/swagger-ui.css">
<link rel="stylesheet" href="${base}/pages.css">
</head>
<body>
<header class="dds-bar"><strong>${escape(title)}</strong>
<span>${note}</span>
<a href="${escape(spec)}">OpenAPI document</a></header>
<main id="swagger-ui" data-spec="${escape(spec)}"></main>
<script src="${base}/swagger-ui-bundle.js"></script>
<script src="${base}/docs.js"></script>
</body>
</html>
`;
}

const USER_NOTE = "Authorize with an access token from <code>POST /auth/login</code> " +
  "(<em>userAccessToken</em>) or a <code>pat_…</code> (<em>personalAccessToken</em>), then " +
  'Try it out. <a href="/playground">Render playground</a>';
const FACTORY_NOTE = "Authorize with a factory principal's token (<em>factoryToken</em>), " +
  "then Try it out.";

const htmlDoc = {
  200: { description: "The HTML page", content: { "text/html": z.string() } },
};

/** `GET {prefix}/docs` and its files, over the document at `{prefix}/openapi.json`. */
export function docsRoutes(prefix: "" | "/internal/factory"): RawRoute[] {
  const base = `${prefix}/docs`;
  const factory = prefix !== "";
  const html = page(
    base,
    `${prefix}/openapi.json`,
    factory ? "Device Display Service: factory console API" : "Device Display Service API",
    factory ? FACTORY_NOTE : USER_NOTE,
  );
  const id = factory ? "factory" : "pages";
  return [
    defineRawRoute({
      method: "GET",
      path: base as `/${string}`,
      operationId: `${id}-docs`,
      summary: "Interactive API reference (this document)",
      tags: [factory ? "factory" : "pages"],
      auth: publicRoute,
      responses: htmlDoc,
      handle: ({ ctx }) =>
        Promise.resolve(htmlResponse(html, { connect: apiOrigins(ctx.services.config) })),
    }),
    defineRawRoute({
      method: "GET",
      path: `${base}/{file}` as `/${string}`,
      operationId: `${id}-docsAsset`,
      summary: "A file of the API reference page",
      tags: [factory ? "factory" : "pages"],
      auth: publicRoute,
      params: z.object({ file: z.string().max(64) }),
      responses: {
        200: {
          description: "The file (script, style sheet or icon)",
          content: {
            "text/javascript": z.string(),
            "text/css": z.string(),
            "image/png": z.string().meta({ format: "binary" }),
          },
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
}
