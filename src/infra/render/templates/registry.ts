/**
 * The push templates shipped in `templates/<name>/` (CONTRACT.md: Content pipeline): each folder
 * holds `template.liquid` (the markup), `schema.json` (a JSON Schema of its variables whose
 * `title` and `description` describe the template) and `sample.json` (variables that render a
 * typical push). Read once per process; a malformed folder fails the load, and a schema that
 * does not compile or a sample it refuses fails `ready()`, which every render worker's warm-up
 * awaits: a broken template fails the start and never reaches a device.
 */
import type { ValidateFunction } from "ajv/dist/2020.js";
import { AppError } from "../../../errors.ts";
import { isUuid } from "../../lib/ids.ts";
import { checkVariables, createValidator, type VariablesResult } from "./validate.ts";

/** What `GET /api/templates` lists for each template (CONTRACT.md). */
export interface TemplateInfo {
  name: string;
  title: string;
  description: string;
  schema: Record<string, unknown>;
}

/** Everything the renderer needs of one template. */
export interface TemplateDefinition extends TemplateInfo {
  markup: string;
  sample: Record<string, unknown>;
  /**
   * Variables holding an image's file id (schema `contentMediaType: "image/*"`): the caller
   * loads those files and passes their bytes by file id; the renderer never fetches.
   */
  imageVariables: string[];
}

/** Where the templates live: `templates/` at the repository root. */
export const TEMPLATES_DIR = new URL("../../../../templates/", import.meta.url);

const NAME = /^[a-z][a-z0-9-]{0,63}$/;

function readJson(url: URL): Record<string, unknown> {
  const value = JSON.parse(Deno.readTextFileSync(url));
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`${url.pathname} is not a JSON object`);
  }
  return value;
}

function imageVariablesOf(schema: Record<string, unknown>): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(properties)
    .filter(([, p]) =>
      typeof p.contentMediaType === "string" && p.contentMediaType.startsWith("image/")
    )
    .map(([name]) => name);
}

/**
 * The loaded templates, their compiled schemas, and the checks the API and the worker share. The
 * schemas are compiled at the first check (or `ready()`), not at load: listing and reading
 * templates needs no validator.
 */
export class TemplateRegistry {
  readonly #templates = new Map<string, TemplateDefinition>();
  #validators: Promise<Map<string, ValidateFunction>> | undefined;

  constructor(definitions: TemplateDefinition[]) {
    for (const definition of definitions) this.#templates.set(definition.name, definition);
  }

  /**
   * Compiles every schema and checks every sample against it, once; rejects naming the template
   * and the file for a schema that does not compile or a sample it refuses.
   */
  ready(): Promise<Map<string, ValidateFunction>> {
    return this.#validators ??= this.#compile();
  }

  async #compile(): Promise<Map<string, ValidateFunction>> {
    const ajv = await createValidator();
    const validators = new Map<string, ValidateFunction>();
    for (const definition of this.#templates.values()) {
      let validate: ValidateFunction;
      try {
        validate = ajv.compile(definition.schema);
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        throw new Error(`Template ${definition.name}: schema.json: ${detail}`);
      }
      const sample = checkVariables(validate, definition.sample);
      if (!sample.ok) {
        throw new Error(`Template ${definition.name}: sample.json: ${sample.message}`);
      }
      validators.set(definition.name, validate);
    }
    return validators;
  }

  /** The templates by name, as `GET /api/templates` answers them. */
  list(): TemplateInfo[] {
    return [...this.#templates.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map(({ name, title, description, schema }) => ({ name, title, description, schema }));
  }

  /** One template, or undefined for an unknown name. */
  get(name: string): TemplateDefinition | undefined {
    return this.#templates.get(name);
  }

  /** Checks variables against the template's schema; undefined when the name is unknown. */
  async check(name: string, variables: unknown): Promise<VariablesResult | undefined> {
    if (!this.#templates.has(name)) return undefined;
    const validate = (await this.ready()).get(name)!;
    return checkVariables(validate, variables);
  }

  /**
   * The API's check (preview, the agent's `create_push`): 404 for an unknown template, 400 naming
   * the variable for variables that do not match the schema (CONTRACT.md: preview) or a picture
   * variable that is not a file id. Returns the variables with defaults filled in.
   */
  async validate(name: string, variables: unknown): Promise<Record<string, unknown>> {
    const result = await this.check(name, variables);
    if (!result) throw new AppError("not_found", `Template ${name} not found`);
    if (!result.ok) throw new AppError("invalid_request", result.message);
    // Issue 25: a path or any other string reached the files query (a uuid column) and failed
    // there as a 500. Only here, not in `check`: the shipped samples name pictures by file name.
    for (const variable of this.#templates.get(name)!.imageVariables) {
      const value = result.variables[variable];
      if (typeof value === "string" && !isUuid(value)) {
        throw new AppError("invalid_request", `Variable ${variable} must be a file id (a UUID)`);
      }
    }
    return result.variables;
  }
}

/** Reads every template folder under `dir`. Throws on a malformed template. */
export function loadTemplateRegistry(dir: URL = TEMPLATES_DIR): TemplateRegistry {
  const definitions: TemplateDefinition[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.isDirectory) continue;
    const name = entry.name;
    if (!NAME.test(name)) throw new Error(`Template folder ${name} is not a valid template name`);
    const folder = new URL(`${name}/`, dir);
    const schema = readJson(new URL("schema.json", folder));
    const { title, description } = schema;
    if (typeof title !== "string" || typeof description !== "string") {
      throw new Error(`Template ${name}: schema.json needs a title and a description`);
    }
    if (schema.type !== "object" || typeof schema.properties !== "object") {
      throw new Error(`Template ${name}: schema.json must describe an object with properties`);
    }
    definitions.push({
      name,
      title,
      description,
      schema,
      markup: Deno.readTextFileSync(new URL("template.liquid", folder)),
      sample: readJson(new URL("sample.json", folder)),
      imageVariables: imageVariablesOf(schema),
    });
  }
  return new TemplateRegistry(definitions);
}

let shared: TemplateRegistry | undefined;

/** The registry of the shipped templates, loaded on first use and kept for the process. */
export function templateRegistry(): TemplateRegistry {
  shared ??= loadTemplateRegistry();
  return shared;
}
