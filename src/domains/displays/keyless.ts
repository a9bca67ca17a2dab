/**
 * Polls that send no key (CONTRACT.md "Displays that send no key"): TRMNL's Raspberry Pi client
 * pointed at a custom server sends only its MAC (`ID`) and never calls `/api/setup`. A MAC proves
 * nothing (docs/security.md), so such a poll stands for a display only where its owner said so:
 * a MAC no one holds gets its pending display and claim screen, as a setup would; a claimed MAC
 * is served only when its owner turned `keyless` on, and otherwise gets a screen saying how to
 * give the client its key, never the owner's pictures. Only from DISPLAY_KEYLESS_NETWORKS.
 */
import { unauthorized } from "../../errors.ts";
import { inNetworks, type Network } from "../../infra/lib/networks.ts";
import type { DevicesService } from "../devices/service.ts";
import type { DisplayKeys, DisplayRow } from "./keys.ts";
import type { DisplayPairing } from "./pairing.ts";
import type { DisplayReply } from "./protocol.ts";
import type { DisplayScreens } from "./screens.ts";

/** `refresh_rate` of the help screen: the owner's change shows within a minute, like a claim. */
export const KEYLESS_HELP_REFRESH_RATE = 60;

export interface KeylessDeps {
  keys: DisplayKeys;
  devices: DevicesService;
  pairing: DisplayPairing;
  screens: DisplayScreens;
  /** DISPLAY_KEYLESS_NETWORKS: where key-less polls are answered from. */
  keylessNetworks: readonly Network[];
}

/** What a key-less poll stands for: a display to answer as a keyed poll of it, or a screen. */
export type KeylessPoll = { display: DisplayRow } | { reply: DisplayReply };

export class KeylessPolls {
  constructor(private readonly deps: KeylessDeps) {}

  /**
   * The display a poll without an `Access-Token` header stands for: the claimed display of its
   * MAC when its owner turned `keyless` on; the help screen when not; the MAC's pending display
   * when no one holds it (made or reused like a setup, counted in the setup limit). 401 without a
   * MAC, or from outside DISPLAY_KEYLESS_NETWORKS, as any poll without a key was.
   */
  async resolve(mac: string | null, ip: string): Promise<KeylessPoll> {
    if (mac === null || !inNetworks(ip, this.deps.keylessNetworks)) {
      throw unauthorized("Unknown display key");
    }
    const claimed = await this.deps.keys.claimedByMac(mac);
    const head = claimed?.device_id ? await this.deps.devices.head(claimed.device_id) : undefined;
    // Claimed and owned: the owner decides. A display its owner let go (unbind) is no one's.
    if (claimed && head?.owner_id) {
      if (claimed.keyless) return { display: claimed };
      const screen = await this.deps.screens.keyless();
      return { reply: await this.deps.screens.reply(202, screen, KEYLESS_HELP_REFRESH_RATE) };
    }
    return { display: await this.deps.pairing.keylessPending(mac, ip) };
  }
}
