/**
 * `deno task device-sim --nfc <file.nfc.json>` (or `--thing <thingName> --password <secret>`): a
 * command-line e-ink device. It connects to the broker as its thing with its MQTT password
 * (CONTRACT.md "MQTT topics": the `mqttPassword` of the device's `.nfc.json` file; last will
 * `offline`), reports state and heartbeats, prints commands, fetches the current push
 * (`up/get_push`), saves the bitmap and confirms it (`up/confirm`).
 *
 * Options: --nfc <file> | --thing <name> --password <secret> (--thing/--password override --nfc)
 *          --mqtt <url> (default MQTT_URL, else the embedded broker on MQTT_PORT)
 *          --format png|raw2|raw4 (default raw2)   --out <dir> (default DATA_DIR/device-sim)
 *          --heartbeat <seconds> (default 60)       --once (exit after the first picture)
 *          --refresh <seconds> (wake up that often and ask for the next queued push with
 *            `up/refresh_push`, as a battery-powered frame does; default off: a push that reaches
 *            QUEUE shows only after `new_push`, i.e. the owner's current-push)
 *          --bind-token <access token or PAT> [--api <url>] (with --nfc: first binds the device
 *            to that user, as the owner's app does after reading the tag; typed client)
 *
 * `deno task device-sim --trmnl [--api url]`: a TRMNL display over HTTP instead (tools/trmnl_sim.ts).
 */
import mqtt from "mqtt";
import type { Socket } from "node:net";
import { createClient } from "../src/client.ts";
import { type Config, ConfigError, loadConfig } from "../src/config.ts";
import { helpAndExit } from "../src/infra/lib/usage.ts";
import { runTrmnlSim, trmnlOptionsFromArgs } from "./trmnl_sim.ts";
import { runPlaylistDemo } from "./playlist_demo.ts";

const USAGE = `
Usage: deno task device-sim --nfc <file.nfc.json> | --thing <thingName> --password <secret>
         [--mqtt url] [--format png|raw2|raw4] [--out dir] [--heartbeat seconds] [--once]
         [--bind-token <access token or PAT> [--api url]]

A command-line e-ink device: connects to the broker as its thing, fetches and "displays" its
current push (saved under --out), confirms it, and prints the commands it receives.

  --nfc <file>          the device's .nfc.json (thing name, MQTT password, bind URI)
  --thing, --password   the thing name and MQTT password instead (override --nfc)
  --mqtt <url>          default MQTT_URL, else the embedded broker on MQTT_PORT (1883)
  --format              png, raw2 (default) or raw4
  --out <dir>           default DATA_DIR/device-sim
  --heartbeat <s>       default 60
  --once                exit after the first picture
  --bind-token <token>  with --nfc: first bind the device to that user, as the app does
  --api <url>           the service for --bind-token (default http://127.0.0.1:PORT)
  --help                this text

Usage: deno task device-sim --trmnl [--api url] [--out dir] [--every seconds] [--once]
         [--press] [--mac AA:BB:CC:DD:EE:FF] [--model og|og_gen2|x|...] [--width px --height px]

A TRMNL display over HTTP (TRMNL's pull protocol): sets itself up, prints its claim code and
where to claim it, polls GET /api/display and writes each new picture into --out. An offered
firmware update is downloaded and checked (length, ESP32 app image, its version); a good one is
"installed" and its version reported in FW-Version from then on.

  --api <url>           the service (default http://127.0.0.1:PORT)
  --out <dir>           default DATA_DIR/device-sim-trmnl (its key is kept there too)
  --every <s>           poll this often instead of the answered refresh_rate (a demo)
  --once                exit after the first picture of the claimed display
  --press               press the button once (the first poll sends special_function: true)
  --playlist-demo       with --token (or DDS_TOKEN): claim a new display, run a playlist of a
                        webhook plugin, a static one and a mashup on it, post new data halfway,
                        and print what it shows over --seconds (default 60), pictures in --out
  --mac, --model        what it sends in ID and Model (default a random MAC, og)
  --width, --height     the panel it reports (default the model's)
`;

export interface SimOptions {
  thing: string;
  /** The device's MQTT password (`mqttPassword` of its `.nfc.json`). */
  password?: string;
  mqttUrl: string;
  format: "png" | "raw2" | "raw4";
  outDir: string;
  heartbeatSeconds: number;
  /**
   * Ask for the next queued push this often (`up/refresh_push`); unset: never. No message tells a
   * device that a push reached QUEUE, so without it only `new_push` (current-push) changes the
   * picture.
   */
  refreshSeconds?: number;
  once: boolean;
  log?: (line: string) => void;
  /** Bind to this user first (`--bind-token`, with the `--nfc` file's bind URI). */
  bind?: { api: string; token: string; nfcPayload: string };
}

/** What the simulated screen shows after a run. */
export interface SimResult {
  pushId?: string;
  file?: string;
  bytes?: number;
}

const EXTENSION = { png: "png", raw2: "raw", raw4: "raw" } as const;

/** Runs the device until stopped (or, with `once`, until it has displayed one push). */
export async function runDeviceSim(options: SimOptions, signal?: AbortSignal): Promise<SimResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  if (options.bind) {
    const bound = await bindWithApp(options.bind);
    log(`${bound.status === "bound" ? "bound" : "already bound"} as device ${bound.deviceId}`);
  }
  const topic = (channel: string) => `devices/${options.thing}/${channel}`;
  const client = await mqtt.connectAsync(options.mqttUrl, {
    clientId: options.thing,
    username: options.thing,
    password: options.password,
    protocolVersion: 4,
    reconnectPeriod: 1000,
    will: { topic: topic("up/status"), payload: "offline", qos: 1, retain: true },
  });
  (client.stream as unknown as Socket)?.setNoDelay?.(true);
  log(`connected to ${options.mqttUrl} as ${options.thing}`);
  const send = (channel: string, body: unknown, retain = false) =>
    client.publishAsync(topic(channel), typeof body === "string" ? body : JSON.stringify(body), {
      qos: 1,
      retain,
    });
  const result: SimResult = {};
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));

  const onMessage = async (t: string, payload: Uint8Array) => {
    let body: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(new TextDecoder().decode(payload));
      if (typeof parsed === "object" && parsed !== null) body = parsed;
    } catch { /* not JSON */ }
    if (t === topic("down/cmd")) {
      if (body.kind === "text") log(`text command: ${body.text}`);
      else if (body.kind === "new_push") {
        log(`new push ${body.pushId}: fetching`);
        await send("up/get_push", { format: options.format });
      } else if (body.kind === "unbound") {
        log("unbound: screen cleared, showing the claim screen");
        await send("up/state", { screen: "claim", battery: 100, firmware: "sim-1.0" });
      }
      return;
    }
    if (t !== topic("down/push")) return;
    if (body.error) {
      log(`no push to show (${body.error})`);
      if (options.once) finish();
      return;
    }
    if (body.changed === false && body.pushId === result.pushId) {
      log(`nothing new queued: still showing push ${body.pushId}`);
      return;
    }
    const res = await fetch(String(body.url));
    if (!res.ok) {
      log(`download failed: ${res.status}`);
      return;
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    await Deno.mkdir(options.outDir, { recursive: true });
    const file = `${options.outDir}/${body.pushId}.${EXTENSION[options.format]}`;
    await Deno.writeFile(file, bytes);
    // On screen, then said so: whoever watches the push turn CONFIRMED already has the line.
    log(`displayed push ${body.pushId} (${bytes.byteLength} bytes) → ${file}`);
    Object.assign(result, { pushId: String(body.pushId), file, bytes: bytes.byteLength });
    await send("up/confirm", { pushId: body.pushId });
    await send("up/state", {
      screen: "showing",
      pushId: body.pushId,
      battery: 100,
      firmware: "sim-1.0",
    });
    if (options.once) finish();
  };
  // A failed download or publish is reported; it must not end the simulator.
  client.on("message", (t, payload) => {
    onMessage(t, payload).catch((error) => log(`message on ${t} failed: ${error}`));
  });

  await client.subscribeAsync(topic("down/#"), { qos: 1 });
  await send("up/status", "online", true);
  await send("up/state", { screen: "booting", battery: 100, firmware: "sim-1.0" });
  await send("up/heartbeat", { battery: 100, firmware: "sim-1.0" });
  const heartbeat = setInterval(
    () => send("up/heartbeat", { battery: 100, firmware: "sim-1.0" }).catch(() => {}),
    options.heartbeatSeconds * 1000,
  );
  await send("up/get_push", { format: options.format });
  const refresh = options.refreshSeconds
    ? setInterval(
      () => send("up/refresh_push", { format: options.format }).catch(() => {}),
      options.refreshSeconds * 1000,
    )
    : undefined;
  signal?.addEventListener("abort", () => finish(), { once: true });
  try {
    await finished;
  } finally {
    clearInterval(heartbeat);
    clearInterval(refresh);
    await send("up/status", "offline", true).catch(() => {});
    await client.endAsync();
  }
  return result;
}

export function parseArgs(args: string[]) {
  const out: Record<string, string | boolean> = {};
  for (let i = 0; i < args.length; i++) {
    const name = args[i].replace(/^--/, "");
    if (args[i + 1] !== undefined && !args[i + 1].startsWith("--")) out[name] = args[++i];
    else out[name] = true;
  }
  return out;
}

/** `--nfc` file fields the simulator uses (the rest is for the NFC tag writer). */
async function readNfcFile(
  path: string,
): Promise<{ thingName?: string; mqttPassword?: string; nfcPayload?: string }> {
  const file = JSON.parse(await Deno.readTextFile(path));
  const text = (v: unknown) => typeof v === "string" ? v : undefined;
  return {
    thingName: text(file.thingName),
    mqttPassword: text(file.mqttPassword),
    nfcPayload: text(file.nfcPayload),
  };
}

/**
 * What the owner's app does after reading the tag: the bind URI's parameters (CONTRACT.md "NFC
 * bind URI") sent to `POST /api/devices/bind/nfc`, here through the typed client.
 */
export async function bindWithApp(
  bind: { api: string; token: string; nfcPayload: string },
): Promise<{ deviceId: string; status: "bound" | "already_bound" }> {
  const q = new URL(bind.nfcPayload).searchParams;
  const api = createClient({ url: bind.api, token: bind.token });
  const result = await api.binding.bindNfc.mutate({
    version: Number(q.get("v")),
    keyId: q.get("kid") ?? undefined,
    hwId: q.get("hw") ?? undefined,
    credentialVersion: Number(q.get("cv")),
    proof: q.get("p") ?? undefined,
  });
  return { deviceId: result.device.id, status: result.status };
}

/**
 * The simulator's options from its command line: `--nfc` supplies the thing name and password
 * of a `.nfc.json` file, `--thing` and `--password` override them. Null without a thing name.
 */
export async function simOptionsFromArgs(
  argv: string[],
  config: Pick<Config, "dataDir" | "mqtt"> & Partial<Pick<Config, "port">>,
): Promise<SimOptions | null> {
  const args = parseArgs(argv);
  const nfc = typeof args.nfc === "string" ? await readNfcFile(args.nfc) : {};
  const thing = typeof args.thing === "string" ? args.thing : nfc.thingName;
  if (!thing) return null;
  const format = ["png", "raw2", "raw4"].includes(String(args.format))
    ? String(args.format) as SimOptions["format"]
    : "raw2";
  return {
    thing,
    password: typeof args.password === "string" ? args.password : nfc.mqttPassword,
    mqttUrl: typeof args.mqtt === "string"
      ? args.mqtt
      : config.mqtt.url ?? `mqtt://127.0.0.1:${config.mqtt.port}`,
    format,
    outDir: typeof args.out === "string" ? args.out : `${config.dataDir}/device-sim`,
    heartbeatSeconds: Number(args.heartbeat) > 0 ? Number(args.heartbeat) : 60,
    refreshSeconds: Number(args.refresh) > 0 ? Number(args.refresh) : undefined,
    once: args.once === true,
    bind: typeof args["bind-token"] === "string" && nfc.nfcPayload
      ? {
        api: typeof args.api === "string" ? args.api : `http://127.0.0.1:${config.port ?? 8080}`,
        token: args["bind-token"],
        nfcPayload: nfc.nfcPayload,
      }
      : undefined,
  };
}

/** `--trmnl`: the HTTP display; one line and exit 1 when it cannot start. */
async function mainTrmnl(): Promise<never> {
  const controller = new AbortController();
  Deno.addSignalListener("SIGINT", () => controller.abort());
  try {
    const args = parseArgs(Deno.args);
    const options = trmnlOptionsFromArgs(args, loadConfig());
    if (args["playlist-demo"] === true) {
      // Issue 37: a display on a playlist of a webhook plugin, a static one and a mashup.
      const token = typeof args.token === "string" ? args.token : Deno.env.get("DDS_TOKEN");
      if (!token) throw new TypeError("--playlist-demo needs --token (or DDS_TOKEN)");
      await runPlaylistDemo({
        api: options.api,
        token,
        seconds: Number(args.seconds) > 0 ? Number(args.seconds) : 60,
        outDir: typeof args.out === "string" ? args.out : `${loadConfig().dataDir}/playlist-demo`,
      });
      Deno.exit(0);
    }
    await runTrmnlSim(options, controller.signal);
  } catch (error) {
    console.error(`device-sim: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
  Deno.exit(0);
}

if (import.meta.main) {
  helpAndExit(Deno.args, USAGE);
  if (Deno.args.includes("--trmnl")) await mainTrmnl();
  let options: SimOptions | null;
  try {
    // The arguments are the simulator's own; the configuration is the environment only.
    options = await simOptionsFromArgs(Deno.args, loadConfig());
  } catch (error) {
    // A bad variable, or an unreadable --nfc file: one line, not a stack trace.
    const problem = error instanceof ConfigError || error instanceof Deno.errors.NotFound ||
      error instanceof SyntaxError;
    if (!problem) throw error;
    console.error(error.message);
    Deno.exit(1);
  }
  if (!options) {
    console.error(`A thing name is required (--nfc or --thing)\n${USAGE.trim()}`);
    Deno.exit(2);
  }
  const controller = new AbortController();
  Deno.addSignalListener("SIGINT", () => controller.abort());
  try {
    await runDeviceSim(options, controller.signal);
  } catch (error) {
    // A refused bind (bad token, wrong service) or an unreachable broker: one line.
    console.error(`device-sim: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
  Deno.exit(0);
}
