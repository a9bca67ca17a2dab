/**
 * The composition root's rules (issue 22): a build runs after the builds it needs, whatever the
 * list's order; a need nothing builds stops the start with the names; hook answers reach the
 * offering domain in list order once every service exists; the model gets the faces' tasks.
 */
import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { parseConfig } from "./config.ts";
import { buildWith, defineDomain, type DomainDefinition, type Infrastructure } from "./face.ts";
import type { Db } from "./schema.ts";
import type { Secrets } from "./secrets.ts";
import type { UnlinkReaction } from "./domains/devices/service.ts";
import { createServices } from "./build_services.ts";
import { DOMAINS } from "./domains.ts";

const config = parseConfig({});
const db = {} as Db;
const secrets = { jwtSecret: "a test key", storageSecret: "another test key" } as Secrets;
const infra = {
  jobs: {},
  renderer: {},
  storage: {},
  messenger: {},
  outbox: {},
  log: { info() {}, warn() {}, error() {} },
  publicBaseUrl: () => "http://localhost",
} as unknown as Infrastructure;

/** Stands for a service in these tests: the fields are typed, their values are not looked at. */
const fake = <T>(value: unknown) => value as T;

Deno.test("services: a build runs after what it needs, whatever the list's order", () => {
  const order: string[] = [];
  const later = defineDomain({
    name: "later",
    build: buildWith(["pats"], ({ services }) => {
      order.push(`later saw pats=${String(services.pats)}`);
      return { billing: fake("billing") };
    }),
  });
  const first = defineDomain({
    name: "first",
    build: buildWith([], () => {
      order.push("first");
      return { pats: fake("pats") };
    }),
  });
  const services = createServices(config, db, secrets, infra, [later, first]);
  assertEquals(order, ["first", "later saw pats=pats"]);
  assertEquals([services.pats, services.billing], [fake("pats"), fake("billing")]);
});

Deno.test("services: a need that nothing builds stops the start with the names", () => {
  const orphan = defineDomain({
    name: "orphan",
    build: buildWith(["devices"], () => ({})),
  });
  assert.throws(() => createServices(config, db, secrets, infra, [orphan]), /orphan \(devices\)/);
});

Deno.test("services: hook answers arrive in list order, made from the finished services", async () => {
  const unlinked: string[] = [];
  let kept: readonly unknown[] = [];
  const offering = defineDomain({
    name: "offering",
    build: buildWith([], ({ hooks }) => {
      kept = hooks("deviceUnlinked");
      // Kept, not read: during the builds no answer exists yet.
      assertEquals(kept.length, 0);
      return {};
    }),
  });
  const answering = (name: string) =>
    defineDomain({
      name,
      hooks: {
        deviceUnlinked: ({ services }) => ({
          inTransaction: () => {
            unlinked.push(`${name} with ${String(services.pats)}`);
            return Promise.resolve();
          },
          afterCommit: () => Promise.resolve(),
        }),
      },
    });
  const builder = defineDomain({
    name: "builder",
    build: buildWith([], () => ({ pats: fake("pats") })),
  });
  createServices(config, db, secrets, infra, [
    answering("b"),
    offering,
    answering("a"),
    builder,
  ]);
  assertEquals(kept.length, 2);
  assert(Object.isFrozen(kept));
  for (const answer of kept as UnlinkReaction[]) {
    await answer.inTransaction(fake(null), fake(null));
  }
  assertEquals(unlinked, ["b with pats", "a with pats"]);
});

Deno.test("services: every face of src/domains.ts is built and the model knows their tasks", () => {
  const services = createServices(config, db, secrets, infra);
  for (const name of ["accounts", "auth", "devices", "pushes", "displays", "targetless"]) {
    assert(name in services, `${name} is built`);
  }
  const tasks = DOMAINS.flatMap((domain: DomainDefinition) =>
    Object.keys(domain.modelTasks?.({ config, renderer: infra.renderer }) ?? {})
  );
  assertEquals(tasks.sort(), ["content.agent", "content.summarize", "targetless.scene"]);
});
