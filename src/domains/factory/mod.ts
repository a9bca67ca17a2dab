/**
 * The factory console's face (SPEC 4.8): its router, its raw routes (CSV import, ZIP and NFC
 * file downloads) and its services, built in one place. They are peers: each takes the
 * database, the access checks and what else it needs, and none reaches another through a parent.
 */
import { buildWith, defineDomain } from "../../face.ts";
import { FactoryAccess } from "./access.ts";
import { AuditService } from "./audit_service.ts";
import { BatchesService } from "./batches_service.ts";
import { CredentialsService } from "./credentials_service.ts";
import { DownloadsService } from "./downloads_service.ts";
import { downloadNfcFile } from "./download_nfc_file.ts";
import { downloadZip } from "./download_zip.ts";
import { importDevices } from "./import_devices.ts";
import { FirmwareService } from "./firmware_service.ts";
import { uploadFirmware } from "./upload_firmware.ts";
import { NfcFiles } from "./nfc_files.ts";
import { RegistrationService } from "./registration_service.ts";
import { factoryRouter } from "./router.ts";
import type { Factory } from "./service.ts";
// Its tables (they add themselves to the database's type, src/schema.ts).
export type { FactoryTables } from "./tables.ts";

declare module "../../services.ts" {
  interface Services {
    factory: Factory;
  }
}

export const factory = defineDomain({
  name: "factory",
  tags: {
    factory: "The factory console: batches, devices, NFC credentials, audit (SPEC 4.8)",
  },
  router: factoryRouter,
  rawRoutes: [importDevices, downloadZip, downloadNfcFile, uploadFirmware],
  /** Builds the factory services over one access module and one file builder. */
  build: buildWith([], ({ db, config, secrets, storage }) => {
    const access = new FactoryAccess(db, config.factoryPrincipals);
    // The NFC file keys are secrets.
    const files = new NfcFiles(config, secrets);
    const factory: Factory = {
      access,
      batches: new BatchesService(db, access),
      registration: new RegistrationService(db, config, access),
      credentials: new CredentialsService(db, config, access, files),
      downloads: new DownloadsService(db, config, access, files),
      files,
      audit: new AuditService(db),
      firmware: new FirmwareService(db, storage, access),
    };
    return { factory };
  }),
});
