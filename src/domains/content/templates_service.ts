/**
 * Push templates as the API shows them (CONTRACT.md): the list with each template's JSON Schema,
 * and a preview that renders the push image for given variables without creating a push. The
 * render runs in the pool; picture variables name the caller's own files.
 */
import { toHttpError } from "../../infra/render/errors.ts";
import { templateRegistry } from "../../infra/render/templates/registry.ts";
import type { Renderer } from "../../infra/render/types.ts";
import type { ContentService } from "./service.ts";

export class TemplatesService {
  constructor(private readonly content: ContentService, private readonly renderer: Renderer) {}

  /** `GET /api/templates`. */
  list() {
    return templateRegistry().list();
  }

  /**
   * `POST /api/templates/{name}/preview`: the 800x480 1-bit PNG. 404 for an unknown template, 400
   * naming the variable, 415/413 for a picture that cannot be rendered, 503 when the pool is full.
   */
  async preview(
    userId: string,
    name: string,
    variables: unknown,
    signal?: AbortSignal,
  ): Promise<Uint8Array> {
    const registry = templateRegistry();
    const checked = await registry.validate(name, variables);
    const fileIds = registry.get(name)!.imageVariables.map((v) => checked[v])
      .filter((v): v is string => typeof v === "string");
    const images = await this.content.imagesOf(userId, fileIds);
    try {
      return await this.renderer.previewTemplate({
        name,
        variables: checked,
        images,
        now: new Date().toISOString(),
      }, { previewOf: userId, signal });
    } catch (error) {
      throw toHttpError(error);
    }
  }
}
