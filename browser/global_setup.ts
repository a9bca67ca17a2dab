/**
 * Starts `harness.ts` (the service, a local identity provider and two browser origins) in a Deno
 * process of its own and hands its URLs to the tests through the environment. Its teardown closes
 * the harness's stdin, and ends the process if it has not stopped by then. Paths are relative to
 * the repository root, where `deno task` runs (Playwright loads this file as CommonJS, so there is
 * no `import.meta`).
 */
import { spawn } from "node:child_process";
import process from "node:process";
import { createInterface } from "node:readline";
import { resolve } from "node:path";

export default async function globalSetup() {
  const harness = spawn(
    process.execPath,
    ["run", "-A", "--no-check=remote", resolve("browser/harness.ts")],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: harness.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error("the harness did not start in 120 s")),
      120_000,
    );
    lines.once("line", (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    harness.once("exit", (code) => reject(new Error(`the harness exited with ${code}`)));
  });
  const world = JSON.parse(first);
  process.env.DDS_WORLD = JSON.stringify(world);
  return async () => {
    harness.stdin!.end();
    const stopped = new Promise((resolve) => harness.once("exit", resolve));
    const timeout = new Promise((resolve) => setTimeout(resolve, 20_000, "timeout"));
    if (await Promise.race([stopped, timeout]) === "timeout") harness.kill("SIGKILL");
  };
}
