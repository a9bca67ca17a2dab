/** SQL of device registration: inserts, serial look-ups and the Idempotency-Key records. */
import type { Db, Trx } from "../../schema.ts";

/** A device row as registration inserts it. */
export interface NewDevice {
  id: string;
  hw_id: string;
  thing_name: string;
  serial: string;
  batch_id: string;
  sku: string | null;
  hw_revision: string | null;
  claim_code: string;
}

/** Inserts devices; rows whose (batch, serial) exists are skipped and not returned. */
export function insertDevices(trx: Trx, rows: NewDevice[]) {
  return trx.insertInto("devices").values(rows)
    .onConflict((oc) => oc.columns(["batch_id", "serial"]).doNothing())
    .returning(["id", "serial"]).execute();
}

/** Devices of a batch with these serials. */
export function findDevicesBySerial(db: Db, batchId: string, serials: string[]) {
  if (!serials.length) return Promise.resolve([]);
  return db.selectFrom("devices").select(["id", "serial", "sku", "hw_revision"])
    .where("batch_id", "=", batchId).where("serial", "in", serials).execute();
}

/** The record of a principal's Idempotency-Key, or undefined. */
export function findIdempotencyKey(trx: Trx, principalId: string, key: string) {
  return trx.selectFrom("factory_idempotency_keys").selectAll()
    .where("principal_id", "=", principalId).where("key", "=", key).executeTakeFirst();
}

/** Records an Idempotency-Key with the body fingerprint and the device it created. */
export function insertIdempotencyKey(
  trx: Trx,
  row: { principal_id: string; key: string; fingerprint: string; device_id: string },
) {
  return trx.insertInto("factory_idempotency_keys").values(row).execute();
}
