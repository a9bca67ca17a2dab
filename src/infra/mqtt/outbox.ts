/**
 * Transactional outbox of device messages: a message that must follow a commit (`unbound` after
 * an unbind or an account deletion, `new_push` after current-push) is a job enqueued in that
 * transaction, and a worker publishes it, retrying with backoff while the broker is unreachable.
 * A crash or a broker outage between the commit and the publish loses nothing; a crash between
 * the PUBACK and the job's completion sends it twice (at least once: both messages are
 * idempotent for the device).
 */
import { z } from "zod";
import { defineQueue, type Jobs } from "../jobs/types.ts";
import type { Trx } from "../../schema.ts";
import { DOWN_CHANNELS } from "./topics.ts";

/** One device message waiting to be published. */
export const deviceMessageQueue = defineQueue({
  name: "device-message",
  schema: z.object({
    thingName: z.string().min(1).max(128),
    channel: z.enum(DOWN_CHANNELS),
    body: z.record(z.string(), z.unknown()),
  }),
  // 1 s doubling to 60 s, 30 retries: a broker outage of up to ~25 minutes is ridden out.
  retry: { limit: 30, delaySeconds: 1, maxDelaySeconds: 60 },
  expireInSeconds: 60,
});

/** A down channel of CONTRACT.md "MQTT topics". */
export type DownChannel = typeof DOWN_CHANNELS[number];

/** Publishes one message; rejects when the broker did not acknowledge it. */
export interface Publisher {
  publish(thingName: string, channel: string, body: unknown): Promise<void>;
}

/** Enqueues device messages in the caller's transaction (the domains see only this). */
export class DeviceOutbox {
  constructor(private readonly jobs: Jobs) {}

  /** Published once `trx` commits; never if it rolls back. */
  async enqueue(
    trx: Trx,
    thingName: string,
    channel: DownChannel,
    body: Record<string, unknown>,
  ): Promise<void> {
    await this.jobs.send(deviceMessageQueue, { thingName, channel, body }, { trx });
  }
}

/** The worker side: publish, and throw on failure so that the job is retried. */
export function deviceMessageHandler(publisher: Publisher) {
  return async (message: z.output<typeof deviceMessageQueue.schema>) => {
    await publisher.publish(message.thingName, message.channel, message.body);
  };
}
