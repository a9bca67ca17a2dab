/**
 * The Scene generation job (SPEC 4.7): `auto` verifies the assets, fetches the links, asks the
 * model for a Scene that fits the viewport and validates it; `hardcode` builds one image element
 * filling the viewport (`fit: "stretch"`), no AI. Either way the Scene is persisted as a
 * presentation linked to the content, the content becomes `ready` and the initial renditions are
 * enqueued, in one transaction. A failure that no retry can fix (or the last try) records a
 * `failed` presentation with its problem and a `failed` content. Nothing here creates a device,
 * a push or an MQTT message.
 */
import type { Selectable } from "kysely";
import { type Model, ModelError } from "../../infra/ai/model.ts";
import type { Attempt } from "../../infra/jobs/types.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import { type Log, silentLog } from "../../infra/lib/log.ts";
import { storedKey } from "../files/keys.ts";
import * as files from "../files/repository.ts";
import { normaliseScene, sceneEnvelope } from "../../infra/render/scene/normalise.ts";
import type { SceneData } from "../../infra/render/scene/types.ts";
import type { TextTask } from "../../infra/render/types.ts";
import { sniffImage } from "../../infra/render/sniff.ts";
import type { TargetlessDeps } from "./deps.ts";
import { imageIds } from "./contents_service.ts";
import { decodeText, extractHtml, extractPlain, type LinkText } from "./links/extract.ts";
import type { LinkFetcher } from "../../infra/outbound/fetch_link.ts";
import * as repo from "./repository.ts";
import { startWaiting } from "./slots.ts";
import { type SceneBrief, sceneOf, sceneRequest } from "./scene_prompt.ts";
import type { OutputProfile, Problem, TargetlessContentsTable } from "./tables.ts";

type ContentRow = Selectable<TargetlessContentsTable>;

/** Why generation failed; `transient` when a later try may succeed. */
export class GenerationFailure extends Error {
  constructor(readonly problem: Problem, readonly transient = false) {
    super(problem.message);
    this.name = "GenerationFailure";
  }
}

/** Tries of the model per generation: the first, and one with the refusal explained. */
const MODEL_TRIES = 2;

export interface GenerateSceneJobOptions {
  model: Model;
  links: LinkFetcher;
  /**
   * Reads a fetched page's text off the request loop (the worker pool's `page` task); without
   * it, in this thread (unit tests).
   */
  pages?: (task: TextTask & { op: "page" }) => Promise<unknown>;
  log?: Log;
}

/** The handler of `generateSceneQueue`. */
export class GenerateSceneJob {
  private readonly log: Log;

  constructor(
    private readonly deps: TargetlessDeps,
    private readonly options: GenerateSceneJobOptions,
  ) {
    this.log = options.log ?? silentLog;
  }

  /** Generates the Scene of a confirmed content; a throw retries the job. */
  async handle(job: { contentId: string }, attempt?: Attempt): Promise<void> {
    const content = await repo.findContentById(this.deps.db, job.contentId);
    // Gone (account deleted), not confirmed, or already done by an earlier try.
    if (!content || content.state !== "processing" || content.mode === "manual") return;
    const profile = content.output as OutputProfile;
    const made: string[] = [];
    try {
      const scene = content.mode === "hardcode"
        ? hardcodeScene(content, profile)
        : await this.autoScene(content, profile, made);
      await this.persist(content, profile, scene);
    } catch (error) {
      await this.forget(content.user_id, made);
      const failure = error instanceof GenerationFailure ? error : null;
      this.log.info("scene generation failed", {
        contentId: content.id,
        error: error instanceof Error ? error.message : String(error),
        attempt: attempt?.number,
      });
      if ((!failure || failure.transient) && !(attempt?.final ?? true)) throw error;
      await this.fail(
        content,
        profile,
        failure?.problem ?? { code: "generation_failed", message: "The Scene could not be made" },
      );
    }
  }

  /** SPEC 4.7 auto: verify assets, fetch links, ask the model, validate. */
  private async autoScene(content: ContentRow, profile: OutputProfile, made: string[]) {
    const images = await this.verifiedImages(content);
    const links: LinkText[] = [];
    for (const asset of content.assets) {
      if (asset.type !== "link") continue;
      const fetched = await this.options.links.fetch(asset.url);
      if (!fetched.ok) {
        throw new GenerationFailure(
          { code: fetched.code, message: fetched.message },
          fetched.transient,
        );
      }
      const header = sniffImage(fetched.body.subarray(0, 64 * 1024));
      if (header?.format === "png" || header?.format === "jpeg") {
        const fileId = await this.keepLinkImage(content, fetched.body, header.format);
        made.push(fileId);
        images.push({ fileId, width: header.width, height: header.height, source: "link" });
      } else if (
        fetched.mediaType === "text/html" || fetched.mediaType === "application/xhtml+xml"
      ) {
        links.push(await this.readPage(fetched, true));
      } else if (fetched.mediaType === "text/plain" || fetched.mediaType === "") {
        links.push(await this.readPage(fetched, false));
      } else {
        throw new GenerationFailure({
          code: "link_unsupported",
          message: `Link ${asset.url} is ${fetched.mediaType}, not a web page, text or a PNG or ` +
            "JPEG image",
        });
      }
    }
    const brief: SceneBrief = {
      viewport: profile.viewport,
      colorMode: profile.colorMode,
      title: content.title,
      intent: content.intent,
      texts: content.assets.flatMap((a) => a.type === "text" ? [a.text] : []),
      links,
      images,
    };
    return await this.askModel(brief, new Set(images.map((i) => i.fileId)));
  }

  /** The content's uploaded images, confirmed and still stored, with their sizes. */
  private async verifiedImages(content: ContentRow): Promise<SceneBrief["images"]> {
    const ids = imageIds(content);
    const rows = await files.findFilesOfUser(this.deps.db, content.user_id, ids);
    const byId = new Map(rows.map((row) => [row.id, row]));
    const out: SceneBrief["images"] = [];
    for (const asset of content.assets) {
      if (asset.type !== "image") continue;
      const file = byId.get(asset.fileId);
      const bytes = file?.status === "confirmed"
        ? await this.deps.store.get(file.object_key)
        : null;
      if (!bytes) {
        throw new GenerationFailure({
          code: "asset_missing",
          message: `Image asset ${asset.fileId} is no longer stored`,
        });
      }
      const header = sniffImage(bytes.subarray(0, 64 * 1024));
      out.push({
        fileId: asset.fileId,
        width: header?.width,
        height: header?.height,
        filename: asset.filename,
        source: "upload",
      });
    }
    return out;
  }

  /** The text of a fetched page: HTML or plain, in the worker pool when there is one. */
  private async readPage(
    fetched: { url: string; body: Uint8Array; charset: string | null },
    html: boolean,
  ): Promise<LinkText> {
    const { url, charset } = fetched;
    if (this.options.pages) {
      // A copy is transferred: the body stays readable here.
      const body = fetched.body.slice().buffer;
      return await this.options.pages({ op: "page", html, url, body, charset }) as LinkText;
    }
    const text = decodeText(fetched.body, charset);
    return html ? extractHtml(url, text) : extractPlain(url, text);
  }

  /** A picture a link pointed at becomes one of the user's files, so a Scene can show it. */
  private async keepLinkImage(content: ContentRow, bytes: Uint8Array, format: "png" | "jpeg") {
    const id = uuidv7();
    const key = storedKey(content.user_id, `targetless/${content.id}`, id);
    const contentType = `image/${format}`;
    await this.deps.store.put(key, bytes, contentType);
    await files.insertFile(this.deps.db, {
      id,
      user_id: content.user_id,
      device_id: null,
      purpose: "targetless_asset",
      object_key: key,
      content_type: contentType,
      size_bytes: bytes.length,
      status: "confirmed",
      confirmed_at: new Date(),
    });
    return id;
  }

  /** Files this try made and will not use (its Scene was not stored). */
  private async forget(userId: string, fileIds: string[]) {
    if (fileIds.length === 0) return;
    for (const file of await files.findFilesOfUser(this.deps.db, userId, fileIds)) {
      await this.deps.store.delete(file.object_key).catch(() => {});
    }
    await files.deleteFilesOfUser(this.deps.db, userId, fileIds);
  }

  /**
   * Asks the model for the Scene and validates it with the one normaliser (SPEC 2.11); a refused
   * Scene is asked for again once with the reason. The viewport is the output profile's, and an
   * image may only show the content's own pictures.
   */
  private async askModel(brief: SceneBrief, allowed: ReadonlySet<string>): Promise<SceneData> {
    let problem: string | undefined;
    for (let i = 0; i < MODEL_TRIES; i++) {
      let answer: unknown;
      try {
        answer = sceneOf(await this.options.model.complete(sceneRequest(brief, problem)));
      } catch (error) {
        if (error instanceof ModelError) {
          throw new GenerationFailure(
            { code: "model_failed", message: "The model could not make a Scene" },
            error.retryable,
          );
        }
        throw error;
      }
      const result = normaliseScene(confine(answer, brief, allowed), {
        maxPixels: this.deps.limits.maxRenditionPixels,
      });
      if (result.ok) return result.scene;
      problem = result.message;
    }
    throw new GenerationFailure({ code: "scene_invalid", message: problem ?? "No Scene" });
  }

  /** Stores the Scene: presentation, link, initial renditions and their jobs, content ready. */
  private async persist(content: ContentRow, profile: OutputProfile, scene: SceneData) {
    const png = profile.formats.includes("png");
    await this.deps.db.transaction().execute(async (trx) => {
      const locked = await repo.lockContent(trx, content.id);
      if (locked?.state !== "processing") return;
      const presentation = await repo.insertPresentation(trx, {
        id: uuidv7(),
        user_id: content.user_id,
        kind: "generated",
        mode: content.mode,
        display_id: null,
        push_id: null,
        // SPEC 3.2: ready at once when no initial rendition was asked for.
        state: png ? "preparing" : "ready",
        output: repo.json(profile),
        scene: repo.json(sceneEnvelope(scene)),
        failure: null,
      }, content.id);
      if (png) {
        // Issue 25 finding 4: the initial rendition counts against the user's concurrent limit.
        // It is not refused (the content was accepted): it waits for a slot (slots.ts).
        await repo.lockUserRenditions(trx, content.user_id);
        await repo.insertRendition(trx, {
          id: uuidv7(),
          presentation_id: presentation.id,
          user_id: content.user_id,
          format: "png",
          width: profile.viewport.width,
          height: profile.viewport.height,
          color_mode: profile.colorMode,
          initial: true,
          state: "preparing",
          waiting: true,
          object_key: null,
          failure: null,
        });
        await startWaiting(this.deps, trx, content.user_id);
      }
      await repo.setContentState(trx, content.id, "ready");
      const data = { contentId: content.id, presentationId: presentation.id };
      await this.deps.events?.emit(trx, content.user_id, "content.ready", data);
      if (!png) await this.deps.events?.emit(trx, content.user_id, "presentation.ready", data);
    });
  }

  /** SPEC 3.2 `failed`: a presentation with the problem and no Scene; the content fails. */
  private async fail(content: ContentRow, profile: OutputProfile, problem: Problem) {
    await this.deps.db.transaction().execute(async (trx) => {
      const locked = await repo.lockContent(trx, content.id);
      if (locked?.state !== "processing") return;
      const presentation = await repo.insertPresentation(trx, {
        id: uuidv7(),
        user_id: content.user_id,
        kind: "generated",
        mode: content.mode,
        display_id: null,
        push_id: null,
        state: "failed",
        output: repo.json(profile),
        scene: null,
        failure: repo.json(problem),
      }, content.id);
      await repo.setContentState(trx, content.id, "failed");
      await this.deps.events?.emit(trx, content.user_id, "content.failed", {
        contentId: content.id,
        presentationId: presentation.id,
        failure: problem,
      });
    });
  }
}

/** SPEC 4.7 hardcode: one image element filling the viewport, stretched. */
export function hardcodeScene(content: ContentRow, profile: OutputProfile): SceneData {
  const [fileId] = imageIds(content);
  const { width, height } = profile.viewport;
  return {
    version: 1,
    viewport: { width, height },
    background: "#FFFFFF",
    elements: [{
      id: "image",
      type: "image",
      frame: { x: 0, y: 0, width, height },
      properties: { fileId, fit: "stretch" },
    }],
  };
}

/**
 * The model's Scene held to the brief: the requested viewport and version, and no image element
 * naming a file that is not one of the content's pictures (a model, or a page it read, cannot
 * make the Scene show someone else's file).
 */
export function confine(answer: unknown, brief: SceneBrief, allowed: ReadonlySet<string>) {
  if (typeof answer !== "object" || answer === null || Array.isArray(answer)) return answer;
  const data: Record<string, unknown> = {
    ...answer as Record<string, unknown>,
    version: 1,
    viewport: brief.viewport,
  };
  if (Array.isArray(data.elements)) {
    data.elements = data.elements.filter((element: unknown) => {
      const e = element as { type?: unknown; properties?: { fileId?: unknown } } | null;
      return e?.type !== "image" || allowed.has(e.properties?.fileId as string);
    });
  }
  return data;
}
