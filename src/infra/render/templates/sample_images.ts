/**
 * Image bytes for a template's image variables outside the service (preview CLI, golden tests):
 * a file id names a file in the template's folder (its shipped sample pictures) or a path. The
 * service itself passes bytes it loaded from storage; it never reads paths from variables.
 */
import type { TemplateDefinition } from "./registry.ts";

/** Reads the pictures `variables` name, by file id. A missing file is left out. */
export async function loadTemplateImages(
  template: TemplateDefinition,
  variables: Record<string, unknown>,
  folder: URL,
): Promise<Record<string, Uint8Array>> {
  const images: Record<string, Uint8Array> = {};
  for (const name of template.imageVariables) {
    const fileId = variables[name];
    if (typeof fileId !== "string" || !fileId) continue;
    const candidates = /^[\w.-]+$/.test(fileId) ? [new URL(fileId, folder), fileId] : [fileId];
    for (const candidate of candidates) {
      try {
        images[fileId] = await Deno.readFile(candidate);
        break;
      } catch { /* try the next place */ }
    }
  }
  return images;
}
