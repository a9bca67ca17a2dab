/**
 * Firmware updates as the devices meet them (issue 24). The factory's registry says which build
 * a device should run (`FirmwareService.offerFor`); this side offers it where the device already
 * talks to the service, at most once a day per device (TRMNL's firmware retries an update at
 * most that often), never to a device its owner holds:
 *
 * - a pull display gets `update_firmware: true` and a signed `firmware_url` in its poll's reply;
 * - an MQTT device that reports its version gets a `firmware` command on `down/cmd`, through the
 *   outbox (in the transaction that records the offer).
 */
import type { DeviceOutbox } from "../devices/service.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import type { Db } from "../../schema.ts";
import type { ObjectStore } from "../../infra/storage/object_store.ts";
import * as repo from "./repository.ts";

/** Signed firmware URLs live this long: an outbox retry and the download fit in it. */
export const FIRMWARE_URL_TTL_SECONDS = 3600;

/** A build to offer (the factory's `OfferedBuild`). */
export interface Offer {
  id: string;
  version: string;
  objectKey: string;
  sha256: string;
  sizeBytes: number;
}

/**
 * A device as an offer matches it: its batch and SKU, the model and version it reports. The
 * batch and SKU are the factory's columns: left out, the factory reads them itself, and only
 * while a rollout is active (a display has neither: it says so with nulls).
 */
export interface UpdatableDevice {
  id: string;
  thingName: string;
  batchId?: string | null;
  sku?: string | null;
  model: string | null;
  firmware: string | null;
}

export interface FirmwareUpdatesDeps {
  db: Db;
  store: ObjectStore;
  outbox: DeviceOutbox;
  /** The build a device should run now, or null (the factory's registry). */
  offerFor(device: Omit<UpdatableDevice, "thingName">): Promise<Offer | null>;
}

/** A reported model name (a poll's `model` header, an MQTT device's `state.model`), when it is one. */
export function modelOf(model: unknown): string | null {
  return typeof model === "string" && model.length <= 100 ? model : null;
}

/** The fields a display's poll reply carries for an update. */
export interface DisplayUpdate {
  update_firmware: true;
  firmware_url: string;
}

/** The `down/cmd` payload of a firmware command (CONTRACT.md "MQTT topics", docs/integrations.md). */
export interface FirmwareCommand extends Record<string, unknown> {
  id: string;
  kind: "firmware";
  version: string;
  url: string;
  sha256: string;
  size: number;
}

export class FirmwareUpdates {
  constructor(private readonly deps: FirmwareUpdatesDeps) {}

  /** What a display's poll adds to its reply: an update, or null (the usual poll). */
  async forDisplay(device: UpdatableDevice): Promise<DisplayUpdate | null> {
    const offer = await this.due(device);
    if (!offer || !(await repo.claimOffer(this.deps.db, device.id, offer.id, new Date()))) {
      return null;
    }
    const url = await this.deps.store.signedGetUrl(offer.objectKey, FIRMWARE_URL_TTL_SECONDS);
    return { update_firmware: true, firmware_url: url };
  }

  /** An MQTT device reported its version: a `firmware` command when one is due. */
  async forMqtt(device: UpdatableDevice): Promise<FirmwareCommand | null> {
    const offer = await this.due(device);
    if (!offer) return null;
    const url = await this.deps.store.signedGetUrl(offer.objectKey, FIRMWARE_URL_TTL_SECONDS);
    const command: FirmwareCommand = {
      id: uuidv7(),
      kind: "firmware",
      version: offer.version,
      url,
      sha256: offer.sha256,
      size: offer.sizeBytes,
    };
    const sent = await this.deps.db.transaction().execute(async (trx) => {
      if (!(await repo.claimOffer(trx, device.id, offer.id, new Date()))) return false;
      await this.deps.outbox.enqueue(trx, device.thingName, "down/cmd", command);
      return true;
    });
    return sent ? command : null;
  }

  /** `GET .../firmware-hold` (ownership checked by the caller). */
  async hold(deviceId: string) {
    const row = await repo.findState(this.deps.db, deviceId);
    return { held: row?.held ?? false, lastOfferAt: row?.offered_at?.toISOString() ?? null };
  }

  /** `PUT .../firmware-hold` (ownership checked by the caller). */
  async setHold(deviceId: string, held: boolean) {
    await repo.setHeld(this.deps.db, deviceId, held);
    return await this.hold(deviceId);
  }

  /**
   * The offer due to a device: the registry's build, unless held or within a day of the last
   * offer. The registry is asked first: with no active rollout (its answer is cached) the usual
   * poll or report reads nothing at all.
   */
  private async due(device: UpdatableDevice): Promise<Offer | null> {
    const { id, batchId, sku, model, firmware } = device;
    const offer = await this.deps.offerFor({ id, batchId, sku, model, firmware });
    if (!offer) return null;
    const state = await repo.findState(this.deps.db, device.id);
    if (state?.held) return null;
    if (state?.offered_at && Date.now() - state.offered_at.getTime() < repo.OFFER_EVERY_MS) {
      return null;
    }
    return offer;
  }
}
