/**
 * Files of the pages people open in a browser (`/`, `/docs`, `/playground`): read once from the
 * service's own tree or from an npm package (swagger-ui-dist, bundled and served locally: no CDN,
 * the pages work offline) and answered with headers that let them run nothing but their own
 * scripts.
 */

/** One servable file: where it is read from and its media type. */
export interface Asset {
  url: URL;
  type: string;
}

const cache = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

/** A file of `src/infra/pages/static/`. */
export function ownAsset(name: string, type: string): Asset {
  return { url: new URL(`./static/${name}`, import.meta.url), type };
}

/** A file of an npm package mapped in deno.json (resolved like the render fonts). */
export function packageAsset(specifier: string, type: string): Asset {
  return { url: new URL(import.meta.resolve(specifier)), type };
}

function read(asset: Asset): Promise<Uint8Array<ArrayBuffer>> {
  const key = asset.url.href;
  let bytes = cache.get(key);
  if (!bytes) {
    bytes = Deno.readFile(asset.url) as Promise<Uint8Array<ArrayBuffer>>;
    // A failed read is not cached: the next request tries again.
    bytes.catch(() => cache.delete(key));
    cache.set(key, bytes);
  }
  return bytes;
}

/** Origins a page may reach besides its own: API calls (`connect`) and pictures (`img`). */
export interface PageOrigins {
  connect?: string[];
  img?: string[];
}

const list = (origins: string[] = []) => origins.map((o) => ` ${o}`).join("");

/**
 * The pages run only their own scripts: no inline script, no eval, nothing from another origin
 * but `connect` to the API origins they call and `img` for pictures stored elsewhere (a bucket).
 * Swagger UI sets inline styles and shows response images as blob: URLs.
 */
export function pageHeaders(type: string, origins: PageOrigins = {}): Record<string, string> {
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob:${list(origins.img)}`,
    "font-src 'self' data:",
    `connect-src 'self'${list(origins.connect)}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
  return {
    "content-type": type,
    "content-security-policy": csp,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": type.startsWith("text/html") ? "no-cache" : "public, max-age=3600",
  };
}

/** A response with the file's bytes. */
export async function assetResponse(asset: Asset, origins: PageOrigins = {}): Promise<Response> {
  return new Response(await read(asset), { headers: pageHeaders(asset.type, origins) });
}

/** An HTML page from a string. */
export function htmlResponse(html: string, origins: PageOrigins = {}): Response {
  return new Response(html, { headers: pageHeaders("text/html; charset=utf-8", origins) });
}

/** Media types of the pages' files. */
export const TYPES = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  png: "image/png",
  json: "application/json",
} as const;

/** Origins a page's API calls may reach besides its own: PUBLIC_BASE_URL when configured. */
export function apiOrigins(
  config: { publicBaseUrl: string; publicBaseUrlConfigured: boolean },
): string[] {
  return config.publicBaseUrlConfigured ? [new URL(config.publicBaseUrl).origin] : [];
}
