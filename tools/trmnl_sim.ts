/**
 * `deno task device-sim --trmnl`: a virtual TRMNL display speaking TRMNL's pull protocol over HTTP
 * (CONTRACT.md "Displays people already own", ../shared/TRMNL.md), so a person can watch a display
 * without hardware. It sets itself up with its MAC (`GET /api/setup`), prints the claim code and
 * where to claim it, then polls `GET /api/display` with its `Access-Token` every `refresh_rate`
 * seconds (or `--every`), downloads `image_url` with a plain GET and writes each new picture
 * (`filename` changed) into `--out`, one line per picture shown.
 *
 * Like the firmware it keeps its key (in `<out>/trmnl-device.json`), so a restart goes on polling
 * as the same display; a 401 makes it set up again (unbound or re-paired elsewhere).
 *
 * Issue 34: an offered update (`update_firmware`) is printed, downloaded and checked as an ESP32
 * OTA would (the length the server declared, an app image, the version in its app description);
 * a good one is "installed": the next polls report its version in `FW-Version`, kept like the key.
 * `--press` presses the button once: that poll sends `special_function: true`, as the firmware does
 * after a press.
 */
import { DEFAULT_MODEL, modelOf, MODELS } from "../src/domains/displays/models.ts";

export interface TrmnlSimOptions {
  /** The service's base URL (the "custom server" of the captive portal). */
  api: string;
  /** The Wi-Fi MAC it sends in `ID`; default: the one kept in `outDir`, else a random one. */
  mac?: string;
  /** The `Model` header (TRMNL's model names: `og`, `og_gen2`, `x`, ...). */
  model: string;
  width: number;
  height: number;
  outDir: string;
  /** Poll this often (seconds) instead of the answered `refresh_rate` (a demo). */
  everySeconds?: number;
  /** Exit after the first picture of a claimed display (body `status` 0). */
  once: boolean;
  /** Press the button once: the first poll with a key carries `special_function: true`. */
  press?: boolean;
  log?: (line: string) => void;
}

/** What the virtual screen showed last. */
export interface TrmnlSimResult {
  mac: string;
  friendlyId?: string;
  filename?: string;
  file?: string;
  bytes?: number;
  /** Pictures written, in order. */
  shown: string[];
  /** The version it reports in `FW-Version` now. */
  firmware: string;
}

/** What the simulator keeps between runs, like the firmware's stored settings. */
interface Kept {
  mac: string;
  apiKey?: string;
  /** The version of the last build it installed (`FW-Version`). */
  firmware?: string;
}

/** The version TRMNL's firmware it imitates reports until it installs another. */
export const FACTORY_FIRMWARE = "1.6.2";

/**
 * The version in an ESP32 app image, as an OTA reads it before installing: the image header's
 * magic byte 0xE9, then (after the 24-byte image header and the first segment's 8-byte header)
 * `esp_app_desc_t`: magic word 0xABCD5432 and, 16 bytes in, `version` (32 bytes, NUL-padded).
 * Null when the bytes are not such an image.
 */
export function espAppVersion(bytes: Uint8Array): string | null {
  if (bytes.byteLength < 80 || bytes[0] !== 0xe9) return null;
  const magic = new DataView(bytes.buffer, bytes.byteOffset + 32, 4).getUint32(0, true);
  if (magic !== 0xabcd5432) return null;
  const field = bytes.subarray(48, 80);
  const end = field.indexOf(0);
  const version = new TextDecoder().decode(end === -1 ? field : field.subarray(0, end));
  return /^[A-Za-z0-9._+-]{1,32}$/.test(version) ? version : null;
}

/** A minimal ESP32 app image carrying `version` (tests, and a build to try the simulator with). */
export function espAppImage(version: string, size = 1024): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(Math.max(size, 80));
  bytes[0] = 0xe9;
  new DataView(bytes.buffer).setUint32(32, 0xabcd5432, true);
  bytes.set(new TextEncoder().encode(version).subarray(0, 31), 48);
  return bytes;
}

const KEPT_FILE = "trmnl-device.json";
/** The firmware's back-off after an error it cannot read (seconds). */
const RETRY_SECONDS = 30;

/** A random locally administered MAC, as the firmware sends it (upper case, colons). */
export function randomMac(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  bytes[0] = (bytes[0] & 0xfc) | 0x02;
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join(":").toUpperCase();
}

/** Runs the display until stopped (or, with `once`, until it shows a claimed picture). */
export async function runTrmnlSim(
  options: TrmnlSimOptions,
  signal?: AbortSignal,
): Promise<TrmnlSimResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const api = options.api.replace(/\/+$/, "");
  await Deno.mkdir(options.outDir, { recursive: true });
  const keptPath = `${options.outDir}/${KEPT_FILE}`;
  const kept = await readKept(keptPath);
  const same = !(options.mac && options.mac !== kept?.mac);
  const state: Kept = {
    mac: options.mac ?? kept?.mac ?? randomMac(),
    apiKey: same ? kept?.apiKey : undefined,
    firmware: same ? kept?.firmware : undefined,
  };
  const result: TrmnlSimResult = {
    mac: state.mac,
    shown: [],
    firmware: state.firmware ?? FACTORY_FIRMWARE,
  };
  let pressPending = options.press === true;
  const headers = (extra: Record<string, string> = {}) => ({
    ID: state.mac,
    "FW-Version": state.firmware ?? FACTORY_FIRMWARE,
    Model: options.model,
    ...extra,
  });

  let reached = false;
  while (!signal?.aborted) {
    try {
      const wait = await step();
      if (wait === null) break;
      reached = true;
      await sleep(wait, signal);
    } catch (error) {
      if (signal?.aborted) break;
      // Never reached: the wrong URL or no service (one line from the command). Later: retry.
      if (!reached) throw new Error(`no service at ${api} (${reason(error)})`);
      log(`service unreachable (${reason(error)}); again in ${RETRY_SECONDS} s`);
      await sleep(options.everySeconds ?? RETRY_SECONDS, signal);
    }
  }
  return result;

  /** One wake: setup when it has no key, a poll, a download; the seconds to sleep (null: done). */
  async function step(): Promise<number | null> {
    if (!state.apiKey) {
      const res = await fetch(`${api}/api/setup`, { headers: headers(), signal });
      const body = await res.json().catch(() => null);
      if (res.status !== 200 || typeof body?.api_key !== "string") {
        const wait = retryAfter(res, RETRY_SECONDS);
        log(
          `setup refused (HTTP ${res.status}${body?.error ? `: ${body.error}` : ""}); ` +
            `again in ${wait} s`,
        );
        return wait;
      }
      state.apiKey = body.api_key;
      result.friendlyId = body.friendly_id;
      await Deno.writeTextFile(keptPath, JSON.stringify(state));
      log(`set up as ${state.mac}: claim code ${body.friendly_id}`);
      log(`  ${body.message}`);
      log(
        `  or: curl -X POST ${api}/api/devices/claim -H "Authorization: Bearer $DDS_TOKEN" ` +
          `-H 'content-type: application/json' -d '{"code":"${body.friendly_id}"}'`,
      );
    }
    // A press wakes the firmware, which polls at once with `special_function: true`.
    const pressed = pressPending;
    pressPending = false;
    const res = await fetch(`${api}/api/display`, {
      headers: headers({
        "Access-Token": state.apiKey!,
        "Battery-Voltage": "4.12",
        RSSI: "-55",
        Width: String(options.width),
        Height: String(options.height),
        "Refresh-Rate": "900",
        "Update-Source": pressed ? "button" : "timer",
        ...(pressed ? { special_function: "true" } : {}),
      }),
      signal,
    });
    const body = await res.json().catch(() => null);
    if (pressed) {
      log(
        `button pressed: sent special_function: true (the service's action: ${
          typeof body?.special_function === "string" ? body.special_function : "unknown"
        })`,
      );
    }
    if (res.status === 401) {
      log("key refused (HTTP 401: unbound or claimed again elsewhere): setting up again");
      state.apiKey = undefined;
      return 0;
    }
    if (res.status !== 200 || typeof body !== "object" || body === null) {
      const wait = retryAfter(res, RETRY_SECONDS);
      log(`poll failed (HTTP ${res.status}); again in ${wait} s`);
      return options.everySeconds ?? wait;
    }
    if (body.status === 500 || body.reset_firmware === true) {
      // What the firmware does: forget the Wi-Fi and the key, start over with setup.
      log("reset asked for: forgetting the key and setting up again");
      state.apiKey = undefined;
      await Deno.writeTextFile(keptPath, JSON.stringify(state));
      return 0;
    }
    const claimed = body.status === 0;
    if (body.update_firmware === true) await update(String(body.firmware_url));
    if (typeof body.filename === "string" && body.filename !== result.filename) {
      const image = await fetch(String(body.image_url), { signal });
      if (!image.ok) {
        await image.body?.cancel();
        log(`image download failed: HTTP ${image.status}`);
      } else {
        const bytes = new Uint8Array(await image.arrayBuffer());
        const name = body.filename.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100);
        const file = `${options.outDir}/${name}${name.endsWith(".png") ? "" : ".png"}`;
        await Deno.writeFile(file, bytes);
        Object.assign(result, { filename: body.filename, file, bytes: bytes.byteLength });
        result.shown.push(file);
        log(`showing ${screenOf(body, pressed)} (${bytes.byteLength} bytes) → ${file}`);
      }
    }
    if (claimed && options.once && result.filename === body.filename) return null;
    const rate = Number(body.refresh_rate);
    return options.everySeconds ?? (rate > 0 ? rate : RETRY_SECONDS);
  }

  /**
   * An offered build: downloaded and checked as an ESP32 OTA would before installing (the
   * service offers a build once a day: a refused one is said, not silently dropped).
   */
  async function update(url: string) {
    const from = state.firmware ?? FACTORY_FIRMWARE;
    log(`firmware update offered (running ${from}): ${url}`);
    const res = await fetch(url, { signal });
    if (!res.ok) {
      await res.body?.cancel();
      log(`firmware download failed: HTTP ${res.status}; still ${from}`);
      return;
    }
    const declared = Number(res.headers.get("content-length"));
    const bytes = new Uint8Array(await res.arrayBuffer());
    const sha256 = new Uint8Array(
      await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
    ).toHex();
    const about = `${bytes.byteLength} bytes, sha256 ${sha256}`;
    if (!(declared === bytes.byteLength)) {
      log(`firmware refused: ${about}, but the server declared ${declared}; still ${from}`);
      return;
    }
    const version = espAppVersion(bytes);
    if (!version) {
      log(`firmware refused: not an ESP32 app image with a version (${about}); still ${from}`);
      return;
    }
    state.firmware = version;
    result.firmware = version;
    await Deno.writeTextFile(keptPath, JSON.stringify(state));
    log(`firmware ${version} installed (${about}): FW-Version ${version} from now on`);
  }
}

/** What a poll's picture is, in words: the claim screen, a push, or a screen of the service's. */
function screenOf(body: Record<string, unknown>, pressed: boolean): string {
  if (body.status !== 0) return "the claim screen";
  const push = /\/api\/display\/image\/([^/?]+)/.exec(String(body.image_url));
  if (push) return `push ${push[1]}`;
  if (pressed && body.special_function === "identify") return "the identify screen";
  return 'the ready screen ("Nothing to show yet": claimed, no push)';
}

/** Reads the kept MAC and key of an earlier run, if any. */
async function readKept(path: string): Promise<Kept | null> {
  try {
    const kept = JSON.parse(await Deno.readTextFile(path));
    return typeof kept?.mac === "string" ? kept : null;
  } catch {
    return null;
  }
}

/** A failed fetch's reason: its cause (Deno's message is "fetch failed"). */
function reason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function retryAfter(res: Response, fallback: number): number {
  const value = Number(res.headers.get("retry-after"));
  return value > 0 ? value : fallback;
}

/** Waits `seconds`, or less when `signal` aborts. */
function sleep(seconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, seconds * 1000);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}

/**
 * The options of `device-sim --trmnl` from its command line (`args` parsed by device-sim):
 * `--api`, `--mac`, `--model`, `--width`/`--height` (default the model's panel), `--out`,
 * `--every`, `--once`, `--press`.
 */
export function trmnlOptionsFromArgs(
  args: Record<string, string | boolean>,
  config: { dataDir: string; port?: number },
): TrmnlSimOptions {
  const text = (name: string) => typeof args[name] === "string" ? args[name] as string : undefined;
  const positive = (name: string) => {
    const value = Number(text(name));
    return value > 0 ? value : undefined;
  };
  const model = text("model") ?? "og";
  const panel = modelOf(model) ?? MODELS[DEFAULT_MODEL];
  const mac = text("mac");
  if (mac !== undefined && !/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i.test(mac)) {
    throw new TypeError("--mac must be six hex pairs with colons, e.g. AA:BB:CC:00:11:22");
  }
  return {
    api: text("api") ?? `http://127.0.0.1:${config.port ?? 8080}`,
    mac: mac?.toUpperCase(),
    model,
    width: Math.round(positive("width") ?? panel.width),
    height: Math.round(positive("height") ?? panel.height),
    outDir: text("out") ?? `${config.dataDir}/device-sim-trmnl`,
    everySeconds: positive("every"),
    once: args.once === true,
    press: args.press === true,
  };
}
