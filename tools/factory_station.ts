/**
 * `deno task factory`: the path a factory station follows, against a running service.
 * Creates a batch (or reuses one by order number), registers devices, generates their NFC
 * credentials, downloads each signed `.nfc.json`, verifies its signature (which covers the
 * device's MQTT password too) with the published manifest key and writes it to the output
 * directory. It then says where each part goes: `nfcPayload` onto the tag, `thingName` and
 * `mqttPassword` into the device's own storage (docs/factory.md). Secrets are never printed.
 *
 *   deno task factory --token <supervisor token> [--url http://localhost:8080] [--order PO-1]
 *     [--sku SKU-A] [--count 3] [--out ./nfc-files]
 */
import { verifyFile } from "../src/factory/nfc_crypto.ts";

function args(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const m = argv[i].match(/^--([a-z-]+)(?:=(.*))?$/);
    if (!m) throw new Error(`Unexpected argument ${argv[i]}`);
    out[m[1]] = m[2] ?? argv[++i] ?? "";
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

async function main() {
  const a = args(Deno.args);
  if (!a.token) {
    console.error(
      "Usage: deno task factory --token <supervisor token> [--url URL] [--order PO] [--sku SKU] [--count N] [--out DIR]",
    );
    Deno.exit(2);
  }
  const base = `${(a.url ?? "http://localhost:8080").replace(/\/$/, "")}/internal/factory`;
  const orderNo = a.order ??
    `PO-${new Date().toISOString().slice(0, 10)}-${crypto.randomUUID().slice(0, 6)}`;
  const count = Number(a.count ?? 3);
  const outDir = a.out ?? "./nfc-files";

  async function call(method: string, path: string, body?: unknown) {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${a.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const parsed = text ? JSON.parse(text) : null;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return { status: res.status, body: parsed };
  }

  const me = (await call("GET", "/whoami")).body;
  console.log(`station ${me.stationId ?? "-"} as ${me.name || me.id} (${me.role})`);

  const batches = (await call("GET", "/batches?limit=200")).body.items as Array<
    { id: string; orderNo: string }
  >;
  let batch = batches.find((b) => b.orderNo === orderNo);
  if (!batch) {
    batch =
      (await call("POST", "/batches", { orderNo, sku: a.sku ?? "SKU-A", plannedQuantity: count }))
        .body;
    console.log(`created batch ${orderNo} (${batch!.id})`);
  } else console.log(`using batch ${orderNo} (${batch.id})`);

  const keys = (await call("GET", "/manifest-keys")).body as Array<
    { id: string; publicKey: string }
  >;
  await Deno.mkdir(outDir, { recursive: true });
  for (let i = 1; i <= count; i++) {
    const serial = `${orderNo}-${String(i).padStart(4, "0")}`;
    // The Idempotency-Key makes a re-run after a crash replay instead of duplicating.
    const res = await fetch(`${base}/devices`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${a.token}`,
        "content-type": "application/json",
        "idempotency-key": `station-${batch!.id}-${serial}`,
      },
      body: JSON.stringify({ batchId: batch!.id, serial }),
    });
    const device = await res.json();
    if (!res.ok) throw new Error(`register ${serial}: ${res.status} ${JSON.stringify(device)}`);
    const view = (await call("GET", `/devices/${device.id}`)).body;
    let credential = view.credential;
    if (!credential) credential = (await call("POST", `/devices/${device.id}/nfc-files`)).body;
    const file = (await call("GET", `/nfc-files/${credential.id}/download`)).body;
    const problem = await checkFile(file, keys);
    if (problem) throw new Error(`${serial}: ${problem}`);
    // The file holds the device's MQTT password: only the owner may read it.
    const path = `${outDir}/${file.serial}.nfc.json`;
    await Deno.writeTextFile(path, JSON.stringify(file, null, 2), { mode: 0o600 });
    console.log(
      `${serial}  hw ${device.hwId}  v${file.credentialVersion}  -> ${path} (signature ok)`,
    );
    console.log(`  tag:    write nfcPayload, read it back, compare SHA-256 with payloadSha256`);
    console.log(
      `  device: MQTT client id and username ${file.thingName}, password mqttPassword (not on the tag)`,
    );
  }
  const stats = (await call("GET", `/batches/${batch!.id}/stats`)).body.counts;
  console.log(`batch ${orderNo}: ${JSON.stringify(stats)}`);
}

if (import.meta.main) await main();
