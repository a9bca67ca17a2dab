/** SQL of NFC binding. The device is locked so that of two binders exactly one wins. */
import type { Trx } from "../../schema.ts";

/** The device with this hwId and the status of its current credential, locked. */
export function lockDeviceByHwId(trx: Trx, hwId: string) {
  return trx.selectFrom("devices as d")
    .leftJoin(
      "nfc_credentials as c",
      (join) =>
        join.onRef("c.device_id", "=", "d.id").onRef(
          "c.credential_version",
          "=",
          "d.credential_version",
        ),
    )
    .selectAll("d")
    .select(["c.status as credential_status", "c.key_id as credential_key_id"])
    .where("d.hw_id", "=", hwId).forUpdate("d").executeTakeFirst();
}
