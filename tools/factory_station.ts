/**
 * `deno task factory`: the path a factory station follows, against a running service.
 * Creates a batch (or reuses one by order number), registers devices, generates their NFC
 * credentials, downloads each signed `.nfc.json`, verifies its signature (which covers the
 * device's MQTT password too) with the published manifest key and writes it to the output
 * directory. It then says where each part goes: `nfcPayload` onto the tag, `thingName` and
 * `mqttPassword` into the device's own storage (docs/factory.md). Secrets are never printed.
 *
 *   deno task factory --token <supervisor token> [--url http://localhost:8080] [--order PO-1]
 *     [--sku SKU-A] [--count 3] [--out ./nfc-files] [--batch-generate] [--zip] [--zip-page 1000]
 *
 * `--batch-generate` makes every pending credential of the batch in one call; `--zip` downloads
 * the files as ZIPs of `--zip-page` files (verifying each) instead of one download per device.
 * The JSON procedures go through the typed client (src/client.ts); the file and ZIP downloads are
 * raw routes and stay plain fetches. Progress lines (counts, ETA) go to stderr.
 */
import { unzipSync } from "fflate";
import { createClient, statusOf } from "../src/client.ts";
import { verifyFile } from "../src/domains/factory/nfc_crypto.ts";
import { Progress } from "../src/infra/lib/progress.ts";
import { helpAndExit } from "../src/infra/lib/usage.ts";

/** The principal docs/factory.md starts the service with; its token is the one to pass. */
const EXAMPLE_PRINCIPALS =
  '[{"id":"s1","token":"station-one-secret-token","role":"supervisor","batches":["*"],"skus":["*"]}]';

const USAGE = `
Usage: deno task factory --token <supervisor token> [--url URL] [--order PO] [--sku SKU]
         [--count N] [--out DIR] [--batch-generate] [--zip] [--zip-page N]

A factory station against a running service: creates (or reuses) the batch, registers --count
devices, generates and downloads each signed .nfc.json into --out, verifies every signature.

  --token <token>    a factory principal's token (FACTORY_PRINCIPALS of the service, docs/factory.md)
  --url <url>        the service or its FACTORY_PORT (default http://localhost:8080)
  --order, --sku     the batch's order number (default a new one) and SKU (default SKU-A)
  --count <n>        devices to register (default 3)
  --out <dir>        where the files go (default ./nfc-files)
  --batch-generate   generate every pending credential in one call
  --zip              download the files as ZIPs of --zip-page files (default 1000)
  --help             this text

The service needs a principal with that token, e.g.
  FACTORY_PRINCIPALS='${EXAMPLE_PRINCIPALS}' deno task start
`;

/**
 * The one line a station prints when the service cannot be used: not reachable, or the token is
 * no principal's (the service has FACTORY_PRINCIPALS unset, `[]`, by default: everyone is refused).
 */
export function stationProblem(error: unknown, url: string): string | null {
  const status = statusOf(error);
  if (status === 401 || status === 403) {
    return `The factory console at ${url} refused the token (${status}): start the service with a principal holding it, e.g. FACTORY_PRINCIPALS='${EXAMPLE_PRINCIPALS}' deno task start, then --token station-one-secret-token`;
  }
  if (status === 404) {
    return `No factory console at ${url} (404): with FACTORY_PORT set, pass --url http://localhost:$FACTORY_PORT`;
  }
  if (
    status === undefined && error instanceof Error && /fetch|connect|refused/i.test(error.message)
  ) {
    return `No service at ${url} (${
      error.message.split("\n")[0]
    }): start it with deno task start, or pass --url`;
  }
  return null;
}

function args(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const m = argv[i].match(/^--([a-z-]+)(?:=(.*))?$/);
    if (!m) throw new Error(`Unexpected argument ${argv[i]}`);
    // A flag followed by another option (or nothing) has no value: `--zip --zip-page 2`.
    const next = argv[i + 1];
    out[m[1]] = m[2] ?? (next === undefined || next.startsWith("--") ? "" : argv[++i]);
  }
  return out;
}

/**
 * A downloaded file the station can use: signed by a published manifest key over every field,
 * `mqttPassword` included, and holding the fields a station needs. Returns what is wrong, or null.
 */
export async function checkFile(
  file: Record<string, unknown>,
  keys: Array<{ id: string; publicKey: string }>,
): Promise<string | null> {
  const key = keys.find((k) => k.id === file.manifestKeyId);
  if (!key) return `unknown manifest key ${String(file.manifestKeyId)}`;
  if (!(await verifyFile(key.publicKey, file))) return "bad signature";
  for (const field of ["nfcPayload", "thingName", "mqttPassword"]) {
    if (typeof file[field] !== "string" || !file[field]) return `no ${field}`;
  }
  // The tag holds only the bind URI; the MQTT password must never be written onto it.
  if ((file.nfcPayload as string).includes(file.mqttPassword as string)) {
    return "mqttPassword inside nfcPayload";
  }
  return null;
}

type ManifestKey = { id: string; publicKey: string };

/** A raw route of the console (file and ZIP downloads); waits out a 429's Retry-After. */
async function download(url: string, token: string, init: RequestInit = {}): Promise<Response> {
  for (;;) {
    const res = await fetch(url, {
      ...init,
      headers: { ...init.headers, authorization: `Bearer ${token}` },
    });
    if (res.status !== 429) {
      if (!res.ok) {
        throw new Error(`${init.method ?? "GET"} ${url}: ${res.status} ${await res.text()}`);
      }
      return res;
    }
    const wait = Math.max(1, Number(res.headers.get("retry-after")) || 5);
    await res.body?.cancel();
    console.error(`download rate limit: waiting ${wait}s`);
    await new Promise((r) => setTimeout(r, wait * 1000));
  }
}

/** Checks a file and writes it where only the owner may read it (it holds the MQTT password). */
async function keep(file: Record<string, unknown>, keys: ManifestKey[], outDir: string) {
  const problem = await checkFile(file, keys);
  if (problem) throw new Error(`${String(file.serial)}: ${problem}`);
  const path = `${outDir}/${String(file.serial)}.nfc.json`;
  await Deno.writeTextFile(path, JSON.stringify(file, null, 2), { mode: 0o600 });
  return path;
}

/** Downloads every file of the batch as ZIPs of `page` files, verifying each file. */
async function exportZips(
  options: { base: string; token: string; batchId: string; total: number; page: number },
  keys: ManifestKey[],
  outDir: string,
) {
  const pages = Math.max(1, Math.ceil(options.total / options.page));
  const progress = new Progress("zip export", { total: pages });
  let files = 0;
  for (let offset = 0; offset < options.total; offset += options.page) {
    const res = await download(`${options.base}/nfc-files:download-zip`, options.token, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ batchId: options.batchId, offset, limit: options.page }),
    });
    const entries = unzipSync(new Uint8Array(await res.arrayBuffer()));
    for (const bytes of Object.values(entries)) {
      await keep(JSON.parse(new TextDecoder().decode(bytes)), keys, outDir);
    }
    files += Object.keys(entries).length;
    progress.step(
      `files ${offset + 1}-${offset + Object.keys(entries).length} of ${options.total}`,
    );
  }
  progress.finish(`${files} files verified`);
  console.log(`exported ${files} files from ${pages} ZIP(s) to ${outDir} (signatures ok)`);
}

async function main() {
  helpAndExit(Deno.args, USAGE);
  let a: Record<string, string>;
  try {
    a = args(Deno.args);
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE.trim()}`);
    Deno.exit(2);
  }
  if (!a.token) {
    console.error(`A --token is required\n${USAGE.trim()}`);
    Deno.exit(2);
  }
  const url = (a.url ?? "http://localhost:8080").replace(/\/$/, "");
  const base = `${url}/internal/factory`;
  const api = createClient({ url, token: a.token });
  const orderNo = a.order ??
    `PO-${new Date().toISOString().slice(0, 10)}-${crypto.randomUUID().slice(0, 6)}`;
  const count = Number(a.count ?? 3);
  const outDir = a.out ?? "./nfc-files";

  // The first call tells whether the service is there and knows the token: one line if not.
  const me = await api.factory.whoami.query().catch((error) => {
    const problem = stationProblem(error, url);
    if (!problem) throw error;
    console.error(problem);
    Deno.exit(1);
  });
  console.log(`station ${me.stationId ?? "-"} as ${me.name || me.id} (${me.role})`);

  const batches = (await api.factory.listBatches.query({ limit: 200 })).items;
  let batch = batches.find((b) => b.orderNo === orderNo);
  if (!batch) {
    batch = await api.factory.createBatch.mutate({
      orderNo,
      sku: a.sku ?? "SKU-A",
      plannedQuantity: count,
    });
    console.log(`created batch ${orderNo} (${batch.id})`);
  } else console.log(`using batch ${orderNo} (${batch.id})`);
  const batchId = batch.id;

  const keys = await api.factory.listManifestKeys.query();
  await Deno.mkdir(outDir, { recursive: true });
  const devices = await register({ url, token: a.token, batchId, orderNo, count });

  if ("batch-generate" in a) {
    const started = performance.now();
    const { generated } = await api.factory.generateBatchNfcFiles.mutate({ batchId });
    console.error(
      `batch generate  ${generated} credentials  ${
        ((performance.now() - started) / 1e3).toFixed(1)
      }s`,
    );
  }

  if ("zip" in a) {
    const { counts } = await api.factory.getBatchStats.query({ batchId });
    await exportZips(
      {
        base,
        token: a.token,
        batchId,
        total: counts.credentialGenerated,
        page: Number(a["zip-page"]) > 0 ? Number(a["zip-page"]) : 1000,
      },
      keys,
      outDir,
    );
  } else {
    const progress = new Progress("download", { total: devices.length });
    for (const device of devices) {
      const view = await api.factory.getDevice.query({ deviceId: device.id });
      const credential = view.credential ??
        await api.factory.generateNfcFile.mutate({ deviceId: device.id });
      const res = await download(`${base}/nfc-files/${credential.id}/download`, a.token);
      const file = await res.json();
      const path = await keep(file, keys, outDir);
      console.log(
        `${device.serial}  hw ${device.hwId}  v${file.credentialVersion}  -> ${path} (signature ok)`,
      );
      console.log(`  tag:    write nfcPayload, read it back, compare SHA-256 with payloadSha256`);
      console.log(
        `  device: MQTT client id and username ${file.thingName}, password mqttPassword (not on the tag)`,
      );
      progress.step(device.serial);
    }
  }
  const stats = (await api.factory.getBatchStats.query({ batchId })).counts;
  console.log(`batch ${orderNo}: ${JSON.stringify(stats)}`);
}

/** Registers `count` devices; each call's Idempotency-Key makes a re-run replay, not duplicate. */
async function register(
  o: { url: string; token: string; batchId: string; orderNo: string; count: number },
) {
  const progress = new Progress("register", { total: o.count });
  const devices: Array<{ id: string; serial: string; hwId: string }> = [];
  for (let i = 1; i <= o.count; i++) {
    const serial = `${o.orderNo}-${String(i).padStart(4, "0")}`;
    // The key travels as a header of this one call, so it gets a client of its own.
    const keyed = createClient({
      url: o.url,
      token: o.token,
      headers: { "idempotency-key": `station-${o.batchId}-${serial}` },
    });
    const device = await keyed.factory.registerDevice.mutate({ batchId: o.batchId, serial });
    devices.push({ id: device.id, serial, hwId: device.hwId });
    progress.step(serial);
  }
  return devices;
}

if (import.meta.main) await main();
