/** What `harness.ts` started, as the tests see it. */
import process from "node:process";
import { resolve } from "node:path";

export interface World {
  /** The service's user API. */
  url: string;
  /** The web portal origin (WEB_APP_URL and CORS_ORIGINS). */
  portal: string;
  /** An origin the service does not allow. */
  other: string;
  accessToken: string;
  pat: string;
  /** A second service, with Stripe configured (a local Stripe-compatible server). */
  billing: string;
  /** The signing secret of that service's Stripe webhook. */
  stripeWebhookSecret: string;
}

/** The running world (set by the global setup). */
export function world(): World {
  const text = process.env.DDS_WORLD;
  if (!text) throw new Error("DDS_WORLD is not set: run through deno task test:browser");
  return JSON.parse(text);
}

/** Where screenshots are kept (a CI artifact; git-ignored). */
export const shot = (name: string) => resolve(`browser/artifacts/screenshots/${name}.png`);
