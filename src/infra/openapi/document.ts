/**
 * Builds the two OpenAPI documents from the declarations that run the service: the user API's
 * (served at `/openapi.json`, committed as `openapi/openapi.json`) and the factory console's
 * (served at `/internal/factory/openapi.json` on the factory ingress, committed as
 * `openapi/factory.json`). Each lists exactly the operations its ingress serves.
 */
import { createDocument } from "zod-openapi";
import type { oas31 } from "zod-openapi";
import type { AnyRouter } from "@trpc/server";
import type { RawRoute } from "../http/raw.ts";
import { type Credential, SECURITY_SCHEMES } from "../http/operation.ts";
import { isFactoryPath } from "../http/routes.ts";
import { type DocumentedOperation, procedureOperations } from "./procedures.ts";
import { documentTags } from "./tags.ts";

export const API_VERSION = "0.1.0";

/** Which document: the user ingress's or the factory ingress's. */
export type Audience = "user" | "factory";

/** The server of the committed documents (PUBLIC_BASE_URL's default). */
export const DEFAULT_SERVER = "http://localhost:8080";

const SCHEMES: Record<Credential, oas31.SecuritySchemeObject> = {
  user: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "A user access token from register, login, refresh or a sign-in provider",
  },
  pat: {
    type: "http",
    scheme: "bearer",
    description: "A personal access token (`pat_…`), acting as its user",
  },
  factory: {
    type: "http",
    scheme: "bearer",
    description: "The token of a factory principal (FACTORY_PRINCIPALS)",
  },
  display: {
    type: "apiKey",
    in: "header",
    name: "Access-Token",
    description:
      "A display's `api_key` from `GET /api/setup` (TRMNL's pull protocol; the header name is case-insensitive)",
  },
};

const INFO: Record<Audience, { title: string; description: string }> = {
  user: {
    title: "Device Display Service",
    description: "Accounts, devices, pushes and the versioned app and SDK surfaces. Errors are " +
      '`{"error": message}`, and `{"error": {code, message, requestId}}` under `/api/sdk/v1` and ' +
      "`/api/app/v1`; every response carries `X-Request-Id`.",
  },
  factory: {
    title: "Device Display Service: factory console",
    description: "Batches, device registration, NFC credentials and the audit log, served on " +
      'the factory ingress only. Errors are `{"error": message}`.',
  },
};

/** Every documented operation of the service, procedures first, in match order. */
export function allOperations(router: AnyRouter, raw: RawRoute[]): DocumentedOperation[] {
  return [
    ...procedureOperations(router),
    ...raw.map((route) => ({ method: route.method, path: route.path, doc: route.doc })),
  ];
}

/** What a document is built from: the service's router, raw routes and the faces' tags. */
export interface DocumentSources {
  router: AnyRouter;
  raw: RawRoute[];
  /** The tags each face declares, in list order (the infrastructure's are added). */
  tags: readonly Readonly<Record<string, string>>[];
}

/**
 * The document of one audience. `serverUrl` is where its operations are called: the user API's
 * PUBLIC_BASE_URL; the factory document names no host (its ingress has no configured URL), so a
 * client resolves it against where the document was fetched.
 */
export function buildOpenApiDocument(
  audience: Audience,
  { router, raw, tags: declared }: DocumentSources,
  serverUrl = DEFAULT_SERVER,
): oas31.OpenAPIObject {
  const known = documentTags(declared);
  const described = new Set(known.map(([name]) => name));
  const operations = allOperations(router, raw)
    .filter((op) => isFactoryPath(op.path) === (audience === "factory"));
  const paths: Record<string, Record<string, DocumentedOperation["doc"]>> = {};
  const tags = new Set<string>();
  const schemes = new Set<Credential>();
  for (const op of operations) {
    const item = paths[op.path] ??= {};
    const method = op.method.toLowerCase();
    if (item[method]) throw new Error(`${op.method} ${op.path} is declared twice`);
    item[method] = op.doc;
    for (const tag of op.doc.tags ?? []) {
      if (!described.has(tag)) {
        throw new Error(
          `tag "${tag}" is declared by no face (\`tags\` in its mod.ts) nor src/infra/openapi/tags.ts`,
        );
      }
      tags.add(tag);
    }
    for (const requirement of op.doc.security ?? []) {
      for (const name of Object.keys(requirement)) {
        schemes.add(
          (Object.keys(SECURITY_SCHEMES) as Credential[])
            .find((c) => SECURITY_SCHEMES[c] === name)!,
        );
      }
    }
  }
  return createDocument({
    openapi: "3.1.0",
    info: { ...INFO[audience], version: API_VERSION },
    servers: [
      audience === "user"
        ? { url: serverUrl, description: "PUBLIC_BASE_URL" }
        : { url: "/", description: "The factory ingress that serves this document" },
    ],
    tags: known
      .filter(([name]) => tags.has(name))
      .map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: Object.fromEntries(
        (Object.keys(SCHEMES) as Credential[])
          .filter((c) => schemes.has(c))
          .map((c) => [SECURITY_SCHEMES[c], SCHEMES[c]]),
      ),
    },
  });
}
