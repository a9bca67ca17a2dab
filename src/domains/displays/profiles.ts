/**
 * A display's profile (CONTRACT.md: how its pushes are drawn: size, grey depth, rotation, and the
 * owner's refresh interval, sleep window and whether polls without its key are served) and the
 * owner's reset request.
 */
import type { Db } from "../../schema.ts";
import { badRequest, conflict, notFound } from "../../errors.ts";
import type { DevicesService } from "../devices/service.ts";
import type { PanelSpec } from "../../infra/render/types.ts";
import { modelOf } from "./models.ts";
import { secondsToWake } from "./sleep.ts";
import * as repo from "./repository.ts";
import type { OwnerProfile } from "./tables.ts";
import { type DisplayProfile, MAX_PANEL_PIXELS, toProfile } from "./views.ts";

export class DisplayProfiles {
  constructor(private readonly db: Db, private readonly devices: DevicesService) {}

  /** `GET /api/devices/{id}/display-profile`: the caller's display (403 another user's). */
  async getProfile(userId: string, deviceId: string): Promise<DisplayProfile> {
    return toProfile(await this.ownedDisplay(userId, deviceId));
  }
  /** `PUT /api/devices/{id}/display-profile`: any of the fields; the whole profile back. */
  async setProfile(
    userId: string,
    deviceId: string,
    input: Partial<OwnerProfile> & { colors?: number; refreshRate?: number; keyless?: boolean },
  ): Promise<DisplayProfile> {
    const display = await this.ownedDisplay(userId, deviceId);
    const { colors, refreshRate, keyless, ...fields } = input;
    if (fields.model !== undefined) {
      if (!modelOf(fields.model)) throw badRequest(`Unknown model ${JSON.stringify(fields.model)}`);
      fields.model = fields.model.trim().toLowerCase();
    }
    const profile = { ...display.profile, ...stripUndefined(fields) };
    const next = toProfile({ ...display, profile });
    if (next.width * next.height > MAX_PANEL_PIXELS) {
      throw badRequest(
        `width x height must be at most ${MAX_PANEL_PIXELS} pixels (${next.width}x${next.height})`,
      );
    }
    if (colors !== undefined && colors !== next.colors) {
      throw badRequest(`colors must be ${next.colors} for a bitDepth of ${next.bitDepth}`);
    }
    const changes = {
      profile,
      refresh_rate: refreshRate ?? display.refresh_rate,
      keyless: keyless ?? display.keyless,
    };
    const row = await repo.updateDisplay(this.db, display.id, changes);
    return toProfile(row ?? { ...display, ...changes });
  }
  /**
   * The panel a device's pushes are drawn for, when it is a claimed display (the render job);
   * null for any other device (800x480, the three v0.1 formats).
   */
  async panelOf(deviceId: string): Promise<PanelSpec | null> {
    const display = await repo.findClaimedByDevice(this.db, deviceId);
    if (!display) return null;
    const { width, height, bitDepth, rotation } = toProfile(display);
    return { width, height, bitDepth, rotation };
  }
  /**
   * Seconds until a device's display wakes when it is inside its owner's sleep window now, else
   * null (a playlist draws nothing for a sleeping display).
   */
  async secondsAsleep(deviceId: string): Promise<number | null> {
    const window = (await repo.findClaimedByDevice(this.db, deviceId))?.profile?.sleepWindow;
    return window ? secondsToWake(window) : null;
  }
  /** `secondsAsleep` of many devices in one read (in `db`, e.g. the caller's transaction). */
  async secondsAsleepOf(deviceIds: string[], db: Db = this.db): Promise<Map<string, number>> {
    const asleep = new Map<string, number>();
    for (const display of await repo.findClaimedByDevices(db, deviceIds)) {
      const window = display.profile?.sleepWindow;
      const seconds = window ? secondsToWake(window) : null;
      if (display.device_id && seconds !== null) asleep.set(display.device_id, seconds);
    }
    return asleep;
  }
  /** `panelOf` of many devices in one read: the displays' panels, by device. */
  async panelsOf(deviceIds: string[]): Promise<Map<string, PanelSpec>> {
    const panels = new Map<string, PanelSpec>();
    for (const display of await repo.findClaimedByDevices(this.db, deviceIds)) {
      const { width, height, bitDepth, rotation } = toProfile(display);
      if (display.device_id) panels.set(display.device_id, { width, height, bitDepth, rotation });
    }
    return panels;
  }
  /**
   * `POST /api/devices/{id}/reset`: the owner's display answers `reset_firmware: true` at its
   * next poll (once). 404/403 like every device route; a device that is not a display is 409.
   */
  async requestReset(userId: string, deviceId: string) {
    const device = await this.devices.owned(userId, deviceId);
    const display = device.transport === "http"
      ? await repo.findClaimedByDevice(this.db, deviceId)
      : undefined;
    if (!display) throw conflict("Only a display that polls (transport http) can be reset");
    await repo.updateDisplay(this.db, display.id, { reset_requested_at: new Date() });
    return { message: "The display resets itself at its next poll" };
  }
  /** The claimed display of one of the caller's devices: the device check, then 404. */
  private async ownedDisplay(userId: string, deviceId: string) {
    await this.devices.owned(userId, deviceId);
    const display = await repo.findClaimedByDevice(this.db, deviceId);
    if (!display) throw notFound("Device is not a display");
    return display;
  }
}

function stripUndefined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
