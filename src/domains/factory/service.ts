/** The factory console's services as procedures and raw routes reach them (SPEC 4.8). */
import type { FactoryAccess } from "./access.ts";
import type { AuditService } from "./audit_service.ts";
import type { BatchesService } from "./batches_service.ts";
import type { CredentialsService } from "./credentials_service.ts";
import type { DownloadsService } from "./downloads_service.ts";
import type { FirmwareService } from "./firmware_service.ts";
import type { NfcFiles } from "./nfc_files.ts";
import type { RegistrationService } from "./registration_service.ts";

/** What procedures and raw routes reach as `services.factory`. */
export interface Factory {
  access: FactoryAccess;
  batches: BatchesService;
  registration: RegistrationService;
  credentials: CredentialsService;
  downloads: DownloadsService;
  files: NfcFiles;
  audit: AuditService;
  /** The firmware registry (issue 24). */
  firmware: FirmwareService;
}
