/**
 * The factory console's services, built in one place (SPEC 4.8). They are peers: each takes the
 * database, the access checks and what else it needs, and none reaches another through a parent.
 */
import type { Config } from "../config.ts";
import type { Db } from "../schema.ts";
import { FactoryAccess } from "./access.ts";
import { AuditService } from "./audit.ts";
import { BatchesService } from "./batches_service.ts";
import { CredentialsService } from "./credentials_service.ts";
import { DownloadsService } from "./downloads_service.ts";
import { type FileKeys, NfcFiles } from "./nfc_files.ts";
import { RegistrationService } from "./registration_service.ts";

/** What procedures and raw routes reach as `services.factory`. */
export interface Factory {
  access: FactoryAccess;
  batches: BatchesService;
  registration: RegistrationService;
  credentials: CredentialsService;
  downloads: DownloadsService;
  files: NfcFiles;
  audit: AuditService;
}

/** Builds the factory services over one access module and one file builder. */
export function createFactory(db: Db, config: Config, keys: FileKeys): Factory {
  const access = new FactoryAccess(db, config.factoryPrincipals);
  const files = new NfcFiles(config, keys);
  return {
    access,
    batches: new BatchesService(db, access),
    registration: new RegistrationService(db, config, access),
    credentials: new CredentialsService(db, config, access, files),
    downloads: new DownloadsService(db, config, access, files),
    files,
    audit: new AuditService(db),
  };
}
