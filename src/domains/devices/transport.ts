/**
 * How a device is reached, by its `transport` column (CONTRACT.md "Displays behind another
 * provider, and image feeds"): the factory's MQTT devices, displays polling over HTTP, and
 * displays behind another provider. Code that used to ask "mqtt or http" asks the device's
 * adapter instead, so another way of reaching a device is one adapter file (and its line in the
 * face that answers `deviceTransports`).
 */
import type { Selectable } from "kysely";
import type { Trx } from "../../schema.ts";
import type { DevicesTable } from "./tables.ts";

type DeviceRow = Selectable<DevicesTable>;

/** How the service talks to devices; the MQTT gateway implements it. */
export interface DeviceMessenger {
  /** Resolves once the broker acknowledged the message; rejects with 503 otherwise. */
  publish(thingName: string, channel: string, body: unknown): Promise<void>;
}

/**
 * Device messages that must follow a commit (`unbound`, `new_push`): enqueued in the transaction
 * and published after it, with retries (src/infra/mqtt/outbox.ts).
 */
export interface DeviceOutbox {
  enqueue(
    trx: Trx,
    thingName: string,
    channel: "down/cmd",
    body: Record<string, unknown>,
  ): Promise<void>;
}

/**
 * What a device is told once a transaction commits: it left its owner (`unbound`), the owner
 * chose what it shows (`new_push`), or a push of it is rendered and waits to be shown
 * (`push_ready`; a device that asks for its pushes needs no word of it).
 */
export type DeviceNotice =
  | { kind: "unbound" }
  | { kind: "new_push"; pushId: string }
  | { kind: "push_ready"; pushId: string };

/** What a transport adds to a device's health (`GET .../health`), e.g. a provider's failures. */
export interface TransportHealth {
  /** The provider's host, its last post and its last failure (never a credential). */
  provider?: {
    name: string;
    host: string | null;
    lastPostAt: string | null;
    lastError: string | null;
    lastErrorAt: string | null;
  };
}

export interface DeviceTransport {
  /** The `transport` column's value naming it (`device.transport` on the wire). */
  readonly name: string;
  /**
   * Delivers an owner's command now (SPEC 4.5 `cmd`), resolving once the device's side took it;
   * absent where the transport carries no commands (409).
   */
  readonly publish?: (device: DeviceRow, channel: "down/cmd", body: unknown) => Promise<void>;
  /** Tells the device `notice` once `trx` commits (retried on its own, never failing `trx`). */
  notify(trx: Trx, device: DeviceRow, notice: DeviceNotice): Promise<void>;
  /** What the device's health adds for this transport. */
  health?(device: DeviceRow): Promise<TransportHealth>;
}
