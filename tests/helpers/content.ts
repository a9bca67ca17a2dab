// deno-lint-ignore-file no-explicit-any -- replies are untyped JSON; tests assert their shape
/** Raw items for tests: pictures to upload, the upload → ticket → confirm flow, and waiting. */
import { encode as encodePng } from "fast-png";
import { assert, expectStatus } from "./assert.ts";
import type { Client } from "./http.ts";
import { eventually } from "./mqtt.ts";

/** A grey PNG with a gradient sky, a dark hill and a bright disc: something a photo might be. */
export function samplePhoto(width = 320, height = 200): Uint8Array {
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const hill = y > height * 0.6 + Math.sin(x / 25) * height * 0.1;
      const sun = (x - width * 0.7) ** 2 + (y - height * 0.3) ** 2 < (height * 0.12) ** 2;
      data[y * width + x] = sun
        ? 250
        : hill
        ? 40 + ((x + y) % 30)
        : 120 + Math.round((y / height) * 100);
    }
  }
  return encodePng({ width, height, data, channels: 1, depth: 8 });
}

/** Posts the bytes to a presigned ticket (fields first, `file` last, no Authorization). */
export async function uploadToTicket(
  ticket: { url: string; fields: Record<string, string> },
  bytes: Uint8Array,
  type = "image/png",
): Promise<number> {
  const form = new FormData();
  for (const [k, v] of Object.entries(ticket.fields)) form.append(k, v);
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>], { type }), "upload");
  const res = await fetch(ticket.url, { method: "POST", body: form });
  await res.body?.cancel();
  return res.status;
}

/** Uploads a raw item (note and pictures), uploads the pictures and confirms it (202). */
export async function createItem(
  api: Client,
  token: string,
  item: { title?: string; text?: string; pictures?: Uint8Array[] },
) {
  const pictures = item.pictures ?? [];
  const created = expectStatus(
    await api.post("/api/raw-items/upload", {
      token,
      body: {
        ...(item.title ? { title: item.title } : {}),
        ...(item.text ? { text: item.text } : {}),
        ...(pictures.length
          ? {
            attachments: pictures.map((p, i) => ({
              contentType: "image/png",
              sizeBytes: p.length,
              filename: `picture-${i + 1}.png`,
            })),
          }
          : {}),
      },
    }),
    201,
  );
  for (const [i, picture] of pictures.entries()) {
    assert.equal(await uploadToTicket(created.attachments[i].upload, picture), 204);
  }
  const confirmed = expectStatus(
    await api.post(`/api/raw-items/${created.id}/confirm`, { token }),
    202,
  );
  return { created, confirmed };
}

/** Polls an item until it leaves `processing`; returns it. */
export function settledItem(api: Client, token: string, id: string): Promise<any> {
  return eventually(async () => {
    const reply = await api.get(`/api/raw-items/${id}`, { token });
    return reply.status === 200 && ["summarized", "failed"].includes(reply.body.status)
      ? reply.body
      : null;
  }, `raw item ${id} to settle`);
}

/** Polls the newest run until it has finished; returns it. */
export function finishedRun(api: Client, token: string, count = 1): Promise<any> {
  return eventually(async () => {
    const reply = await api.get("/api/analyze/runs", { token });
    const runs = reply.body?.items ?? [];
    return runs.length >= count && ["succeeded", "failed"].includes(runs[0].status)
      ? runs[0]
      : null;
  }, "analyze run to finish");
}
