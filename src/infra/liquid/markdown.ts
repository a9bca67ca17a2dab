/**
 * `markdown_to_html` and `qr_code`: the two trmnl-liquid filters that produce markup. Both are
 * made here, in the process, so a render never reaches the network for them (CONTRACT: a
 * render's page reaches no network; a QR code from an image service would be a request).
 */
import { Marked } from "marked";
import { renderSVG } from "uqr";

/** Markdown with raw HTML shown as text: a recipe's data can format, not inject elements. */
const markdown = new Marked({
  async: false,
  gfm: true,
  renderer: {
    html: ({ text }) => escapeHtml(text),
  },
});

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Renders Markdown (CommonMark and GitHub tables) to HTML; links keep only http(s) and mailto. */
export function markdownToHtml(text: unknown): string {
  const html = markdown.parse(String(text ?? "")) as string;
  return html.replace(
    /\b(href|src)="(?!https?:|mailto:|#)[^"]*"/gi,
    (_, attribute: string) => `${attribute}="#"`,
  );
}

const LEVELS = new Set(["L", "M", "Q", "H"]);

/**
 * An inline `<svg class="qr-code">` of `data`, each module `size` pixels (trmnl-liquid's default
 * 11), at error correction `level` (l, m, q or h; anything else is h, as trmnl-liquid does).
 */
export function qrCode(data: unknown, size: unknown = 11, level: unknown = ""): string {
  const ecc = String(level ?? "").toUpperCase();
  const pixelSize = Math.min(Math.max(Math.trunc(Number(size)) || 11, 1), 64);
  const svg = renderSVG(String(data ?? ""), {
    ecc: (LEVELS.has(ecc) ? ecc : "H") as "L" | "M" | "Q" | "H",
    pixelSize,
    border: 0,
    whiteColor: "#fff",
    blackColor: "#000",
  });
  // uqr gives only a viewBox: the width and height make each module `size` pixels on the page.
  const side = /viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1] ?? "0";
  return svg.replace(
    /^<svg /,
    `<svg class="qr-code" width="${side}" height="${side}" shape-rendering="crispEdges" `,
  );
}
