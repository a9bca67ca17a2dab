/**
 * Runs the `sh` blocks of README.md and docs/*.md as a reader pastes them: with bash, against a
 * started server, through a `curl` shim on PATH that logs every request's status, so each step
 * is checked and not just the block's exit code (issue 27; tests/readme_test.ts and
 * tests/docs_commands_test.ts).
 */
import { assert } from "./assert.ts";

/**
 * The `sh` blocks of one section (from its `## ` heading to the next), fenced at the margin or
 * inside a list item (the item's indentation is removed).
 */
export function shellBlocks(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const next = markdown.indexOf("\n## ", start + 1);
  const section = markdown.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map((m) =>
    m[2].split("\n").map((line) => line.startsWith(m[1]) ? line.slice(m[1].length) : line)
      .join("\n")
  );
}

export async function run(command: string, args: string[], options: Deno.CommandOptions = {}) {
  const out = await new Deno.Command(command, {
    ...options,
    args,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** Where a tool is, or a failure that says what to install. */
export async function which(tool: string): Promise<string> {
  const found = await run("bash", ["-c", `command -v ${tool}`]);
  assert.equal(
    found.code,
    0,
    `the documents' examples need ${tool} on PATH (apt-get install ${tool})`,
  );
  return found.stdout.trim();
}

export interface Step {
  status: number;
  method: string;
  path: string;
}

/**
 * Runs a script with bash (`-eo pipefail`) in `dir` with `env` added; returns the requests curl
 * made, in order, and what the script printed.
 */
export async function runShell(
  script: string,
  dir: string,
  env: Record<string, string> = {},
): Promise<{ steps: Step[]; stdout: string }> {
  const curl = await which("curl");
  const bin = `${dir}/bin`;
  await Deno.mkdir(bin, { recursive: true });
  await Deno.writeTextFile(
    `${bin}/curl`,
    `#!/usr/bin/env bash\nexec ${curl} "$@" -w '%{stderr}step %{http_code} %{method} %{url_effective}\\n'\n`,
  );
  await Deno.chmod(`${bin}/curl`, 0o755);
  const result = await run("bash", ["-eo", "pipefail", "-c", script], {
    cwd: dir,
    env: { ...env, PATH: `${bin}:${Deno.env.get("PATH")}` },
    signal: AbortSignal.timeout(120_000),
  });
  assert.equal(result.code, 0, `the block failed:\n${script}\n${result.stderr}\n${result.stdout}`);
  const steps = [...result.stderr.matchAll(/^step (\d{3}) (\w+) (\S+)$/gm)].map((m) => ({
    status: Number(m[1]),
    method: m[2],
    path: new URL(m[3]).pathname,
  }));
  return { steps, stdout: result.stdout };
}
