/**
 * `deno task template:preview <name> [vars.json] [--out file.png] [--now ISO]`: renders a push
 * template into the 800x480 1-bit push image, exactly as a device would get it.
 *
 * Without vars.json the template's sample.json is used. Image variables name a file id; the
 * preview reads the file of that name from the template's folder (the shipped samples) or a
 * path relative to the current directory. Writes `<name>.preview.png` unless `--out` is given.
 */
import { loadTemplateRegistry, TEMPLATES_DIR } from "../src/infra/render/templates/registry.ts";
import { renderTemplateBitmaps } from "../src/infra/render/templates/render.ts";
import { loadTemplateImages } from "../src/infra/render/templates/sample_images.ts";
import { helpAndExit } from "../src/infra/lib/usage.ts";

const USAGE = "usage: deno task template:preview <name> [vars.json] [--out file.png] [--now ISO]";
helpAndExit(
  Deno.args,
  `${USAGE}

Renders a push template (templates/<name>/) into the 800x480 1-bit push image a device gets, with
vars.json or the template's sample.json; writes <name>.preview.png unless --out is given.`,
);

function usage(message: string): never {
  console.error(`${message}\n${USAGE}`);
  Deno.exit(2);
}

const positional: string[] = [];
const flags: Record<string, string> = {};
for (let i = 0; i < Deno.args.length; i++) {
  const arg = Deno.args[i];
  if (arg.startsWith("--")) flags[arg.slice(2)] = Deno.args[++i] ?? usage(`${arg} needs a value`);
  else positional.push(arg);
}
const [name, varsPath] = positional;
if (!name) usage("A template name is required");
const registry = loadTemplateRegistry();
const template = registry.get(name);
if (!template) {
  usage(`Unknown template ${name}; known: ${registry.list().map((t) => t.name).join(", ")}`);
}
const variables = varsPath ? JSON.parse(await Deno.readTextFile(varsPath)) : template.sample;
const images = await loadTemplateImages(template, variables, new URL(`${name}/`, TEMPLATES_DIR));
const started = performance.now();
const result = await renderTemplateBitmaps(registry, { name, variables, images, now: flags.now });
if (!result.ok) {
  console.error(`${result.code}: ${result.message}`);
  Deno.exit(1);
}
const out = flags.out ?? `${name}.preview.png`;
await Deno.writeFile(out, result.bitmaps.png);
console.log(
  `${out} (${result.bitmaps.png.length} bytes, ${(performance.now() - started).toFixed(0)} ms)`,
);
