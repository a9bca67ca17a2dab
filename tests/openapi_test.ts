/**
 * Issue 17: the documents the service serves, where it serves them, and the check that holds every
 * reply of the suite to them (tests/helpers/openapi.ts).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { client } from "./helpers/http.ts";
import { assertDocumented } from "./helpers/openapi.ts";
import { serverSuite } from "./helpers/suite.ts";
import { startTestServer } from "./helpers/server.ts";
import { createDevice } from "./helpers/devices.ts";
import { COMMITTED } from "../src/openapi.ts";

const committed = async (file: URL) => JSON.parse(await Deno.readTextFile(file));

const suite = serverSuite("openapi", { PUBLIC_BASE_URL: "https://api.example.test" });

suite.test("GET /openapi.json is the committed user document, its server PUBLIC_BASE_URL", async (api) => {
  const served = expectStatus(await api.get("/openapi.json"), 200);
  assertEquals(served.servers, [{
    url: "https://api.example.test",
    description: "PUBLIC_BASE_URL",
  }]);
  const expected = await committed(COMMITTED.user);
  assertEquals({ ...served, servers: null }, { ...expected, servers: null });
  assert.ok(!Object.keys(served.paths).some((p) => p.startsWith("/internal/factory")));
});

suite.test("without FACTORY_PORT the console's own document is served beside it", async (api) => {
  const served = expectStatus(await api.get("/internal/factory/openapi.json"), 200);
  assertEquals(served, await committed(COMMITTED.factory));
  assert.ok(Object.keys(served.paths).every((p) => p.startsWith("/internal/factory/")));
});

/** A reply made up for the check, as the server might have sent it. */
function reply(status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = body === null ? "" : JSON.stringify(body);
  return {
    status,
    text,
    headers: new Headers({ ...(text ? { "content-type": "application/json" } : {}), ...headers }),
  };
}

const ID = "0193a0c0-0000-7000-8000-000000000000";

suite.test(
  "a reply the document does not describe fails, naming operation, status and error",
  async (_api, s) => {
    const refused = async (
      method: string,
      path: string,
      r: ReturnType<typeof reply>,
      message: RegExp,
    ) => {
      let error: Error | undefined;
      try {
        await assertDocumented(s.url, method, path, r);
      } catch (e) {
        error = e as Error;
      }
      assert.ok(error, `${method} ${path} ${r.status} passed`);
      assert.match(error.message, message);
    };
    // The same replies that are described pass.
    await assertDocumented(s.url, "GET", `/api/devices/${ID}`, reply(404, { error: "Not found" }));
    await assertDocumented(
      s.url,
      "POST",
      "/auth/login",
      reply(429, { error: "Slow down" }, { "retry-after": "30" }),
    );
    await refused(
      "GET",
      `/api/devices/${ID}`,
      reply(418, { error: "x" }),
      /devices-getDevice \(GET \/api\/devices\/\{id\}\) answered 418, which the document does not declare/,
    );
    await refused(
      "GET",
      "/auth/me",
      reply(401, { message: "x", code: "UNAUTHORIZED" }),
      /accounts-getMe .* answered 401 with a body that does not match its schema: .*error/,
    );
    await refused(
      "GET",
      "/api/sdk/v1/me",
      reply(401, { error: "x" }),
      /sdk-me .* 401 .*\/error must be object/,
    );
    await refused(
      "POST",
      "/auth/login",
      reply(429, { error: "x" }),
      /accounts-login .* 429 without its required header Retry-After/,
    );
    await refused(
      "GET",
      "/auth/oauth/google",
      reply(302, null),
      /oauth-googleStart .* 302 without its required header Location/,
    );
    await refused(
      "DELETE",
      `/api/personal-access-tokens/${ID}`,
      reply(204, {}),
      /pats-revokePat .* 204 with a body the document says is empty/,
    );
    await refused("GET", "/no/such/path", reply(200, {}), /no operation of the served document/);
    // The pre-router's own answers to unknown paths and methods are no operation's.
    await assertDocumented(s.url, "GET", "/no/such/path", reply(404, { error: "Not found" }));
    await assertDocumented(s.url, "GET", "/auth/login", reply(405, { error: "Method GET" }));
  },
);

// deno-lint-ignore no-explicit-any -- documents are walked as plain JSON
type Json = any;

/** Every request body of a document: operation, media type and its object. */
function requestBodies(doc: Json) {
  const out: { op: string; pointer: string; type: string; media: Json }[] = [];
  const escape = (s: string) => s.replaceAll("~", "~0").replaceAll("/", "~1");
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      for (const [type, media] of Object.entries<Json>(operation.requestBody?.content ?? {})) {
        out.push({
          op: `${method.toUpperCase()} ${path}`,
          pointer: `#/paths/${escape(path)}/${method}/requestBody/content/${escape(type)}/schema`,
          type,
          media,
        });
      }
    }
  }
  return out;
}

/** The example of an operation's JSON body in the committed user document. */
async function exampleOf(method: string, path: string): Promise<Json> {
  const doc = await committed(COMMITTED.user);
  return doc.paths[path][method.toLowerCase()].requestBody.content["application/json"].example;
}

Deno.test("openapi: every request body of both documents has an example its schema accepts", async () => {
  let count = 0;
  for (const file of [COMMITTED.user, COMMITTED.factory]) {
    const doc = await committed(file);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    for (const format of ["binary", "byte", "int32", "int64", "float", "double"]) {
      ajv.addFormat(format, true);
    }
    ajv.addSchema({ ...doc, $id: "doc.json" });
    for (const body of requestBodies(doc)) {
      count++;
      assert.ok("example" in body.media, `${body.op} (${body.type}) has no example`);
      assert.ok(body.media.schema, `${body.op} (${body.type}) has no schema`);
      const validate = ajv.compile({ $ref: `doc.json${body.pointer}` });
      assert.ok(
        validate(body.media.example),
        `${body.op}: its example does not match its schema: ${ajv.errorsText(validate.errors)}`,
      );
    }
  }
  assert.ok(count >= 30, `only ${count} request bodies found`);
});

suite.test(
  "Try it out with the prefilled bodies: register, login, PAT, custom-push upload and content create succeed",
  async (api, s) => {
    // The suite's server has a fresh database: the example account does not exist yet.
    const registered = expectStatus(
      await api.post("/auth/register", { body: await exampleOf("POST", "/auth/register") }),
      201,
    );
    const token = registered.accessToken;
    expectStatus(
      await api.post("/auth/login", { body: await exampleOf("POST", "/auth/login") }),
      200,
    );
    const pat = expectStatus(
      await api.post("/api/personal-access-tokens", {
        token,
        body: await exampleOf("POST", "/api/personal-access-tokens"),
      }),
      201,
    );
    // The device id is the one path parameter the person fills in: one of theirs.
    const device = await createDevice(s, registered.user.id);
    const ticket = expectStatus(
      await api.post(`/api/devices/${device.id}/custom-push/upload`, {
        token,
        body: await exampleOf("POST", "/api/devices/{id}/custom-push/upload"),
      }),
      200,
    );
    assert.ok(ticket.url && ticket.fileId);
    for (const [prefix, credential] of [["/api/app/v1", token], ["/api/sdk/v1", pat.token]]) {
      const content = expectStatus(
        await api.post(`${prefix}/contents`, {
          token: credential,
          body: await exampleOf("POST", `${prefix}/contents`),
        }),
        201,
      );
      assertEquals(content.state, "uploading");
    }
  },
);

suite.end();

Deno.test({
  name: "openapi: with FACTORY_PORT the factory document is served only on the factory port",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const server = await startTestServer({ FACTORY_PORT: "0" });
    try {
      const user = client(server.url);
      const factory = client(server.factoryUrl);
      const userDoc = expectStatus(await user.get("/openapi.json"), 200);
      assert.ok(!Object.keys(userDoc.paths).some((p) => p.startsWith("/internal/factory")));
      expectError(await user.get("/internal/factory/openapi.json"), 404);
      const factoryDoc = expectStatus(await factory.get("/internal/factory/openapi.json"), 200);
      assertEquals(factoryDoc, await committed(COMMITTED.factory));
      expectError(await factory.get("/openapi.json"), 404);
    } finally {
      await server.close();
    }
  },
});
