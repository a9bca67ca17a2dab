/**
 * What other domains add to a claimed display's poll (issue 24), through the hooks the displays
 * domain declares (`displayFirmware`, `displayButton`, src/domains/displays/mod.ts): a firmware
 * update (`update_firmware`, `firmware_url`) and the button's function (`special_function`, and a
 * press carried out before the push is read). A display nobody answers for gets `false`, `null`
 * and `"none"`.
 */
/**
 * The device a poll is for, as the poll knows it without a database read (the cached head and
 * the display's own row); a hook that needs more reads it itself.
 */
export interface PolledDevice {
  id: string;
  owner_id: string;
  thing_name: string;
}

/** The reply fields the extras set. */
export interface ExtraFields {
  update_firmware: boolean;
  firmware_url: string | null;
  special_function: string;
}

/** A screen shown instead of the push for one poll (an `identify` press). */
export interface ExtraScreen {
  image_url: string;
  filename: string;
}

/** Offers a firmware update to a polling display, or null. */
export type DisplayFirmwareHook = (
  device: PolledDevice,
  reported: Record<string, string>,
) => Promise<{ update_firmware: true; firmware_url: string } | null>;

/**
 * The button: carries out a press reported by this poll (before the push is read, so a `rewind`
 * is what the reply shows), says whether it moved the device's push, and the function the
 * firmware should announce.
 */
export type DisplayButtonHook = (device: PolledDevice, headers: Headers) => Promise<
  { special_function: string; screen: ExtraScreen | null; moved: boolean }
>;

/**
 * The most seconds a display may wait before its next poll, or null for no limit (a playlist's
 * current item ends then). Answered from a cache: it runs at every poll.
 */
export type DisplayRefreshCapHook = (deviceId: string) => Promise<number | null>;

/** The answers to the hooks (lists filled once every service is built). */
export interface PollExtras {
  firmware: readonly DisplayFirmwareHook[];
  button: readonly DisplayButtonHook[];
  refreshCap?: readonly DisplayRefreshCapHook[];
}

/** The smallest cap the hooks answer for the device, or null. */
export async function refreshCap(extras: PollExtras, deviceId: string): Promise<number | null> {
  let cap: number | null = null;
  for (const hook of extras.refreshCap ?? []) {
    const seconds = await hook(deviceId);
    if (seconds !== null && (cap === null || seconds < cap)) cap = seconds;
  }
  return cap;
}

/** The defaults: nothing to update, no function. */
export const NO_EXTRAS: ExtraFields = {
  update_firmware: false,
  firmware_url: null,
  special_function: "none",
};

/** Runs the button hooks (before the push is read); the first that answers for the device. */
export async function pressButton(extras: PollExtras, device: PolledDevice, headers: Headers) {
  for (const button of extras.button) return await button(device, headers);
  return { special_function: "none", screen: null, moved: false };
}

/** The firmware fields of the reply: the first offer a hook makes. */
export async function firmwareFields(
  extras: PollExtras,
  device: PolledDevice,
  reported: Record<string, string>,
): Promise<Pick<ExtraFields, "update_firmware" | "firmware_url">> {
  for (const firmware of extras.firmware) {
    const update = await firmware(device, reported);
    if (update) return update;
  }
  return { update_firmware: false, firmware_url: null };
}
