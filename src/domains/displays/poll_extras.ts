/**
 * What other domains add to a claimed display's poll (issue 24), kept apart from the poll itself:
 * a firmware update (`update_firmware`, `firmware_url`) and the button's function
 * (`special_function`, and a press carried out before the push is read). Each is optional; a
 * display without them answers `false`, `null` and `"none"`.
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

/** The hooks, each given the device and the poll's reported headers (lower-case names). */
export interface PollExtras {
  /** Offers a firmware update, or null. */
  firmware?(device: PolledDevice, reported: Record<string, string>): Promise<
    { update_firmware: true; firmware_url: string } | null
  >;
  /**
   * The button: carries out a press reported by this poll (before the push is read, so a
   * `rewind` is what the reply shows) and says the function the firmware should announce.
   */
  button?(device: PolledDevice, headers: Headers): Promise<
    { special_function: string; screen: ExtraScreen | null }
  >;
}

/** The defaults: nothing to update, no function. */
export const NO_EXTRAS: ExtraFields = {
  update_firmware: false,
  firmware_url: null,
  special_function: "none",
};

/** Runs the button hook (before the push is read). */
export async function pressButton(extras: PollExtras, device: PolledDevice, headers: Headers) {
  return extras.button
    ? await extras.button(device, headers)
    : { special_function: "none", screen: null };
}

/** The firmware fields of the reply. */
export async function firmwareFields(
  extras: PollExtras,
  device: PolledDevice,
  reported: Record<string, string>,
): Promise<Pick<ExtraFields, "update_firmware" | "firmware_url">> {
  const update = extras.firmware ? await extras.firmware(device, reported) : null;
  return update ?? { update_firmware: false, firmware_url: null };
}
