/** A custom push through the API (ticket, upload, confirm): its render runs as a pg-boss job. */
import { encode as encodePng } from "fast-png";
import { assert, expectStatus } from "./assert.ts";
import type { Client } from "./http.ts";
import { fetchChecked } from "./openapi.ts";

/** A grey test image of the given size. */
export function greyPng(width = 320, height = 240): Uint8Array {
  const data = new Uint8Array(width * height);
  for (let i = 0; i < data.length; i++) data[i] = (i * 7) % 256;
  return encodePng({ width, height, data, channels: 1, depth: 8 });
}

/** Uploads `png` as a custom push of the device and confirms it; returns the push id. */
export async function customPush(
  api: Client,
  token: string,
  deviceId: string,
  png = greyPng(),
): Promise<string> {
  const base = `/api/devices/${deviceId}`;
  const ticket = expectStatus(
    await api.post(`${base}/custom-push/upload`, {
      token,
      body: { contentType: "image/png", sizeBytes: png.byteLength },
    }),
    200,
  );
  const form = new FormData();
  for (const [k, v] of Object.entries<string>(ticket.fields)) form.append(k, v);
  form.append("file", new Blob([png as Uint8Array<ArrayBuffer>], { type: "image/png" }));
  const uploaded = await fetchChecked(ticket.url, { method: "POST", body: form });
  assert.equal(uploaded.status, 204);
  await uploaded.body?.cancel();
  const confirmed = expectStatus(
    await api.post(`${base}/custom-push/confirm`, { token, body: { fileId: ticket.fileId } }),
    200,
  );
  return confirmed.pushId;
}
