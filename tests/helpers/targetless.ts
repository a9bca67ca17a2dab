// deno-lint-ignore-file no-explicit-any -- replies are untyped JSON; tests assert their shape
/**
 * Targetless tests on both versioned surfaces: an account with a user token (`/api/app/v1`) and
 * a PAT (`/api/sdk/v1`), uploads to content tickets, and polling until a state is reached.
 */
import { encode as encodePng } from "fast-png";
import { assert, expectStatus } from "./assert.ts";
import { type CallOptions, type Client, registerUser, type Reply } from "./http.ts";
import { eventually } from "./mqtt.ts";

/** One surface as a test uses it: its prefix and the credential it takes. */
export interface Mount {
  name: "app" | "sdk";
  prefix: "/api/app/v1" | "/api/sdk/v1";
  /** The credential of this surface (user token or PAT). */
  token: string;
  /** The other surface's credential, which this one refuses. */
  wrongToken: string;
}

/** A registered user with a PAT, and its two mounts. */
export interface Account {
  userId: string;
  accessToken: string;
  pat: string;
  app: Mount;
  sdk: Mount;
  /** Calls `method path` on a mount with its credential. */
  call(mount: Mount, method: string, path: string, options?: CallOptions): Promise<Reply>;
}

/** Registers a user and creates a PAT for the SDK surface. */
export async function account(api: Client, prefix = "tl"): Promise<Account> {
  const user = await registerUser(api, prefix);
  const created = expectStatus(
    await api.post("/api/personal-access-tokens", {
      token: user.accessToken,
      body: { name: "sdk tests" },
    }),
    201,
  );
  const app: Mount = {
    name: "app",
    prefix: "/api/app/v1",
    token: user.accessToken,
    wrongToken: created.token,
  };
  const sdk: Mount = {
    name: "sdk",
    prefix: "/api/sdk/v1",
    token: created.token,
    wrongToken: user.accessToken,
  };
  return {
    userId: user.user.id,
    accessToken: user.accessToken,
    pat: created.token,
    app,
    sdk,
    call(mount, method, path, options = {}) {
      const fn = { GET: api.get, POST: api.post, PUT: api.put, DELETE: api.delete }[method]!;
      return fn(`${mount.prefix}${path}`, { token: mount.token, ...options });
    },
  };
}

/** Asserts the versioned envelope `{"error":{code,message,requestId}}` with status and code. */
export function expectCode(reply: Reply, status: number, code: string) {
  const body = expectStatus(reply, status) as any;
  assert.deepEqual(Object.keys(body), ["error"], JSON.stringify(body));
  assert.deepEqual(Object.keys(body.error).sort(), ["code", "message", "requestId"]);
  assert.equal(body.error.code, code, JSON.stringify(body));
  assert.equal(typeof body.error.message, "string");
  assert.equal(body.error.requestId, reply.headers.get("x-request-id"));
  return body.error as { code: string; message: string; requestId: string };
}

/** A small RGB PNG of `width`x`height`: left half red, right half blue. */
export function testPng(width = 64, height = 48): Uint8Array {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 3;
      if (x < width / 2) data[p] = 220;
      else data[p + 2] = 220;
    }
  }
  return encodePng({ width, height, data, channels: 3, depth: 8 });
}

/** POSTs `bytes` to a presigned ticket the way a browser form would (no Authorization). */
export async function upload(
  ticket: { url: string; fields: Record<string, string> },
  bytes: Uint8Array,
  type = "image/png",
): Promise<number> {
  const form = new FormData();
  for (const [k, v] of Object.entries(ticket.fields)) form.append(k, v);
  form.append("file", new Blob([bytes.slice()], { type }), "upload");
  const res = await fetch(ticket.url, { method: "POST", body: form });
  await res.body?.cancel();
  return res.status;
}

/** Polls `GET path` on a mount until `done(body)`; returns that body. */
export function poll(
  acct: Account,
  mount: Mount,
  path: string,
  done: (body: any) => boolean,
  what = path,
): Promise<any> {
  return eventually(async () => {
    const reply = await acct.call(mount, "GET", path);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return done(reply.body) ? reply.body : null;
  }, what);
}

/** Width, height, colour type and bit depth from a PNG's IHDR. */
export function pngInfo(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47], "not a PNG");
  return {
    width: view.getUint32(16),
    height: view.getUint32(20),
    bitDepth: bytes[24],
    colorType: bytes[25],
  };
}

/** Downloads a signed URL. */
export async function download(url: string) {
  const res = await fetch(url);
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    bytes: new Uint8Array(await res.arrayBuffer()),
  };
}

/** A random Idempotency-Key. */
export function newKey(): string {
  return `key-${crypto.randomUUID()}`;
}

/**
 * Creates a hardcode content with one PNG, uploads it and confirms it; returns the content
 * and, once generated, the presentation (ready: its initial rendition done).
 */
export async function hardcodePresentation(
  acct: Account,
  mount: Mount,
  output: Record<string, unknown> = { preset: "default" },
  png = testPng(),
) {
  const created = expectStatus(
    await acct.call(mount, "POST", "/contents", {
      body: {
        mode: "hardcode",
        title: "Hard",
        output,
        assets: [{ type: "image", contentType: "image/png", sizeBytes: png.length }],
      },
    }),
    201,
  );
  assert.equal(await upload(created.assets[0].upload, png), 204);
  expectStatus(await acct.call(mount, "POST", `/contents/${created.id}/confirm`), 202);
  const content = await poll(
    acct,
    mount,
    `/contents/${created.id}`,
    (c) => c.state !== "processing",
  );
  assert.equal(content.state, "ready", JSON.stringify(content));
  const presentation = await poll(
    acct,
    mount,
    `/presentations/${content.presentationIds[0]}`,
    (p) => p.state !== "preparing",
  );
  return { content, presentation };
}
