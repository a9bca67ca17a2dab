// deno-lint-ignore-file no-explicit-any -- replies are untyped JSON; tests assert their shape
/** Factory principals and helpers shared by the factory and binding tests. */
import { encodeBase64 } from "@oslojs/encoding";
import { type Client, client } from "./http.ts";

const token = (name: string) => `${name}-token-0123456789abcdef`;

/** Principals of every role and scope the tests need (CONTRACT.md FACTORY_PRINCIPALS). */
export const P = {
  sup: { id: "sup", name: "Supervisor", role: "supervisor", batches: ["*"], skus: ["*"] },
  op: { id: "op", name: "Operator", role: "operator", batches: ["*"], skus: ["*"] },
  op2: { id: "op2", name: "Operator Two", role: "operator", batches: ["*"], skus: ["*"] },
  aud: { id: "aud", name: "Auditor", role: "auditor", batches: ["*"], skus: ["*"] },
  // Scoped by order number and SKU.
  scoped: {
    id: "scoped",
    name: "Scoped",
    role: "operator",
    batches: ["PO-SCOPE"],
    skus: ["SKU-A"],
  },
  scopedSup: {
    id: "scopedSup",
    name: "Scoped supervisor",
    role: "supervisor",
    batches: ["PO-SCOPE"],
    skus: ["*"],
  },
  nobody: { id: "nobody", name: "Nobody", role: "supervisor", batches: [], skus: [] },
  // Scoped to one SKU over every batch (issue 16: devices of another SKU in a batch of theirs).
  skuSup: {
    id: "skuSup",
    name: "SKU-A supervisor",
    role: "supervisor",
    batches: ["*"],
    skus: ["SKU-A"],
  },
  skuOp: { id: "skuOp", name: "SKU-A operator", role: "operator", batches: ["*"], skus: ["SKU-A"] },
  skuAud: { id: "skuAud", name: "SKU-A auditor", role: "auditor", batches: ["*"], skus: ["SKU-A"] },
} as const;

export type PrincipalName = keyof typeof P;

/** The bearer of a principal. */
export const tokenOf = (name: PrincipalName) => token(name);

/** A fixed master key so tests can derive proofs independently. */
export const MASTER_KEY = new Uint8Array(32).map((_, i) => (i * 7 + 3) & 0xff);
export const OLD_KEY = new Uint8Array(32).map((_, i) => (i * 11 + 1) & 0xff);
/** A fixed MQTT device key so tests can derive a device's MQTT password independently. */
export const MQTT_DEVICE_KEY = new Uint8Array(32).map((_, i) => (i * 5 + 9) & 0xff);

/** The environment of a server with these principals and keys. */
export function factoryEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    FACTORY_PRINCIPALS: JSON.stringify(
      Object.entries(P).map(([name, p]) => ({ ...p, token: token(name), stationId: "st-1" })),
    ),
    NFC_MASTER_KEYS: JSON.stringify({ old: encodeBase64(OLD_KEY), k2: encodeBase64(MASTER_KEY) }),
    NFC_ACTIVE_KEY_ID: "k2",
    MQTT_DEVICE_KEY: encodeBase64(MQTT_DEVICE_KEY),
    ...extra,
  };
}

/** A client that sends one principal's bearer. */
export function as(api: Client, name: PrincipalName) {
  const t = tokenOf(name);
  return {
    get: (path: string, o: any = {}) => api.get(`/internal/factory${path}`, { ...o, token: t }),
    post: (path: string, o: any = {}) => api.post(`/internal/factory${path}`, { ...o, token: t }),
  };
}

export function factoryClient(url: string) {
  return client(url);
}

let n = 0;
/** A unique order number. */
export const orderNo = (prefix = "PO") => `${prefix}-${Date.now().toString(36)}-${n++}`;

/** Creates a batch as the supervisor; returns its body. */
export async function createBatch(api: Client, body: Record<string, unknown> = {}) {
  const reply = await as(api, "sup").post("/batches", {
    body: { orderNo: orderNo(), sku: "SKU-A", plannedQuantity: 10, ...body },
  });
  if (reply.status !== 201) throw new Error(`batch: ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** Registers a device in a batch as the supervisor. */
export async function registerDevice(api: Client, batchId: string, serial?: string) {
  const reply = await as(api, "sup").post("/devices", {
    body: { batchId, ...(serial ? { serial } : {}) },
  });
  if (reply.status !== 201) throw new Error(`device: ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** A registered device with a generated credential and its downloaded file. */
export async function provisionedDevice(api: Client, batchId?: string) {
  const batch = batchId ?? (await createBatch(api)).id;
  const device = await registerDevice(api, batch);
  const credential = (await as(api, "sup").post(`/devices/${device.id}/nfc-files`)).body;
  const file = (await as(api, "sup").get(`/nfc-files/${credential.id}/download`)).body;
  return { batchId: batch, device, credential, file };
}

/** The bind request of a `.nfc.json` payload URI. */
export function bindRequestOf(uri: string) {
  const q = new URL(uri.replace(/^[a-z][a-z0-9+.-]*:\/\//, "http://x/")).searchParams;
  return {
    version: Number(q.get("v")),
    keyId: q.get("kid")!,
    hwId: q.get("hw")!,
    credentialVersion: Number(q.get("cv")),
    proof: q.get("p")!,
  };
}
