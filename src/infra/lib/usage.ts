/**
 * `--help` of the command-line tools (`deno task start`, `admin`, `device-sim`, `factory`, ...):
 * the usage on stdout and exit 0, before the tool reads its configuration or opens anything.
 */

/** True when the arguments ask for help (`--help` or `-h`). */
export function asksForHelp(args: readonly string[]): boolean {
  return args.includes("--help") || args.includes("-h");
}

/** Prints `usage` and exits 0 when `args` ask for help; otherwise returns. */
export function helpAndExit(args: readonly string[], usage: string): void {
  if (!asksForHelp(args)) return;
  console.log(usage.trim());
  Deno.exit(0);
}
