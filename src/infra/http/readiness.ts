/**
 * `GET /ready`: whether this process can do its work now, for a load balancer or orchestrator
 * (`/health` stays the liveness check: it answers while the process runs at all). Each piece of
 * infrastructure a process opens registers its own check (database, MQTT broker, render pool,
 * migrations), so a process checks only what it has. Every request re-checks, each check under a
 * short timeout, so the answer turns 503 during an outage and back to 200 after it.
 */
import { z } from "zod";
import { AppError } from "../../errors.ts";
import { defineRawRoute, json, publicRoute, type RawRoute } from "./raw.ts";
import { within } from "../lib/deadline.ts";

/** How long one check may take before it counts as unavailable. */
export const CHECK_TIMEOUT_MS = 1_000;

/** One component: true when usable; false, a throw or a timeout mean unavailable. */
export type ReadinessCheck = () => boolean | Promise<boolean>;

type CheckState = "ok" | "unavailable";

/** The components of one process and their checks. */
export class Readiness {
  readonly #checks = new Map<string, ReadinessCheck>();

  /** Adds (or replaces) a component's check. */
  register(name: string, check: ReadinessCheck): void {
    this.#checks.set(name, check);
  }

  /** Runs every check at once; ready when there is at least one and all pass. */
  async report(): Promise<{ ready: boolean; checks: Record<string, CheckState> }> {
    const entries = await Promise.all(
      [...this.#checks].map(async ([name, check]) => [name, await run(check)] as const),
    );
    const checks = Object.fromEntries(entries);
    return { ready: entries.length > 0 && entries.every(([, s]) => s === "ok"), checks };
  }
}

async function run(check: ReadinessCheck): Promise<CheckState> {
  try {
    const ok = await within(Promise.resolve().then(check), CHECK_TIMEOUT_MS, false);
    return ok ? "ok" : "unavailable";
  } catch {
    return "unavailable";
  }
}

const checksSchema = z.record(z.string(), z.enum(["ok", "unavailable"])).meta({
  description: "Each component of this process (`database`, `migrations`, `broker`, `render`) " +
    "and whether it is usable now",
});

/** The route over one process's checks. */
export function readyRoute(readiness: Readiness): RawRoute {
  return defineRawRoute({
    method: "GET",
    path: "/ready",
    operationId: "system-ready",
    summary: "Readiness",
    description: "200 once migrations ran and every component of this process (database, MQTT " +
      "broker, render pool) is usable; 503 before that and during an outage of any of them, " +
      "naming the unavailable components. Each request checks again. `/health` is the " +
      "liveness check.",
    tags: ["system"],
    auth: publicRoute,
    responses: {
      200: {
        description: "Ready to serve",
        content: {
          "application/json": z.object({ status: z.literal("ready"), checks: checksSchema }),
        },
      },
      503: {
        description: "Not ready: the error names the components that are unavailable",
      },
    },
    async handle() {
      const { ready, checks } = await readiness.report();
      if (!ready) {
        const down = Object.entries(checks).filter(([, s]) => s !== "ok").map(([name]) => name);
        // The surface's error envelope, like every error of the API; names only, no causes.
        throw new AppError(
          "unavailable",
          down.length ? `Not ready: ${down.join(", ")} unavailable` : "Not ready",
          { "cache-control": "no-store" },
        );
      }
      return json({ status: "ready", checks }, 200, { "cache-control": "no-store" });
    },
  });
}
