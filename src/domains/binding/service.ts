/**
 * NFC binding (SPEC 4.5 bind/nfc, 3.6, 9.4). Every credential fault (shape, version, unknown
 * key, wrong proof, stale or revoked credential) is one indistinguishable 400, so neither keys
 * nor credential versions can be enumerated. The proof is checked before the database is asked
 * about the hwId, so an unknown device is only revealed to someone holding a valid proof.
 */
import { badRequest, conflict, notFound } from "../../errors.ts";
import type { Db } from "../../schema.ts";
import type { NfcKeyring } from "../factory/keys.ts";
import { BIND_VERSION, HW_ID, verifyProof } from "../factory/nfc_crypto.ts";
import { toDevice } from "../devices/views.ts";
import type { DevicesService } from "../devices/service.ts";
import type { CredentialsService } from "../factory/credentials_service.ts";

export const INVALID_CREDENTIAL = "Invalid NFC credential";

export interface BindInput {
  version?: unknown;
  keyId?: unknown;
  hwId?: unknown;
  credentialVersion?: unknown;
  proof?: unknown;
}

export class BindingService {
  constructor(
    private readonly db: Db,
    private readonly keyring: NfcKeyring,
    /** The devices domain owns the owner columns (docs/decisions.md). */
    private readonly devices: DevicesService,
    /** The factory owns the credentials. */
    private readonly credentials: Pick<CredentialsService, "stateOf">,
  ) {}

  async bindNfc(userId: string, input: BindInput) {
    const { version, keyId, hwId, credentialVersion, proof } = input;
    const master = typeof keyId === "string" && Object.hasOwn(this.keyring.keys, keyId)
      ? this.keyring.keys[keyId]
      : undefined;
    const wellFormed = version === BIND_VERSION && master !== undefined &&
      typeof hwId === "string" && HW_ID.test(hwId) &&
      typeof credentialVersion === "number" && Number.isInteger(credentialVersion) &&
      credentialVersion >= 1 && typeof proof === "string";
    if (
      !wellFormed ||
      !(await verifyProof(master!, hwId as string, credentialVersion as number, proof as string))
    ) {
      throw badRequest(INVALID_CREDENTIAL);
    }
    return await this.db.transaction().execute(async (trx) => {
      // The device row is locked, so of two binders exactly one wins; its credential is read
      // after the lock, in the same transaction.
      const device = await this.devices.lockByHwId(trx, hwId as string);
      if (!device) throw notFound("Device is not registered");
      const credential = await this.credentials.stateOf(trx, device.id, device.credential_version);
      // SPEC 3.4b: only the current, unrevoked credential binds; an older version is refused.
      const current = device.credential_version === credentialVersion &&
        credential !== undefined && credential.key_id === keyId &&
        credential.status !== "revoked";
      if (!current) throw badRequest(INVALID_CREDENTIAL);
      if (device.owner_id === userId) {
        return { device: toDevice(device), status: "already_bound" as const };
      }
      if (device.owner_id !== null) throw conflict("Device is bound to another user");
      const bound = await this.devices.bindTo(trx, device.id, userId);
      if (!bound) throw conflict("Device is bound to another user");
      return { device: bound, status: "bound" as const };
    });
  }
}
