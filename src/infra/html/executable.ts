/**
 * Which Chromium draws HTML screens (STACK.md, "Headless Chromium for HTML screens"): the
 * operator's `CHROMIUM_PATH`, else a system Chromium (its headless shell first), else the binary the npm package
 * `@sparticuz/chromium` ships (unpacked to /tmp on first use, ~2 s), so a machine with only npm
 * still draws them.
 */

/** Where the executable came from, as the start-up line names it. */
export type ChromiumSource = "CHROMIUM_PATH" | "system" | "@sparticuz/chromium";

export interface ChromiumExecutable {
  path: string;
  source: ChromiumSource;
}

/**
 * System installs looked for, in order: Debian's headless shell (`apt-get install
 * chromium-headless-shell`: the same Blink and the same pixels as its `chromium`, without the
 * desktop browser's profile machinery, so a render's fresh context costs ~50 ms of CPU, not
 * ~240 ms), then Debian's, Ubuntu's and Google's full browsers.
 */
export const SYSTEM_CHROMIUMS = [
  "/usr/bin/chromium-headless-shell",
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
];

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/**
 * The executable to launch. A configured `CHROMIUM_PATH` that is not a file is an error, never
 * silently replaced: the operator asked for that one.
 */
export async function findChromium(configured?: string): Promise<ChromiumExecutable> {
  if (configured) {
    if (!(await isFile(configured))) {
      throw new Error(`CHROMIUM_PATH ${configured} is not a file`);
    }
    return { path: configured, source: "CHROMIUM_PATH" };
  }
  for (const path of SYSTEM_CHROMIUMS) {
    if (await isFile(path)) return { path, source: "system" };
  }
  // Its recommended flags are for AWS Lambda (--single-process, --no-zygote); Playwright's own
  // headless flag drives its headless-shell build (checked here: 153.0.8010.0 launched).
  const { default: packaged } = await import("@sparticuz/chromium");
  return { path: await packaged.executablePath(), source: "@sparticuz/chromium" };
}

/**
 * The start-up line about HTML screens: which Chromium draws them and whether its sandbox is on,
 * without launching it (it starts with the first screen) or unpacking the npm one.
 */
export async function screensLine(configured?: string): Promise<string> {
  const sandbox = Deno.uid?.() === 0
    ? "sandbox off (running as root)"
    : "sandbox on where the OS allows it";
  if (configured) {
    return (await isFile(configured))
      ? `HTML screens: Chromium ${configured} (CHROMIUM_PATH), ${sandbox}`
      : `WARNING: CHROMIUM_PATH ${configured} is not a file: plugin screens cannot be drawn`;
  }
  for (const path of SYSTEM_CHROMIUMS) {
    if (await isFile(path)) return `HTML screens: Chromium ${path} (system), ${sandbox}`;
  }
  return `HTML screens: Chromium from @sparticuz/chromium (unpacked to /tmp at the first ` +
    `screen; set CHROMIUM_PATH to use another), ${sandbox}`;
}
