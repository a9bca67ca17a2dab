/**
 * Factory console procedures (SPEC 4.8), mounted under /internal/factory. Colon custom methods
 * come before their `{param}` siblings: routes match in declaration order (STACK.md).
 */
import { router } from "../../infra/trpc/init.ts";
import { listBatches } from "./list_batches.ts";
import { createBatch } from "./create_batch.ts";
import { getBatch } from "./get_batch.ts";
import { getBatchStats } from "./get_batch_stats.ts";
import { listDevices } from "./list_devices.ts";
import { generateBatchNfcFiles } from "./generate_batch_nfc_files.ts";
import { registerDevice } from "./register_device.ts";
import { revokeAndReissue } from "./revoke_and_reissue.ts";
import { getDevice } from "./get_device.ts";
import { generateNfcFile } from "./generate_nfc_file.ts";
import { createDownloadRequest } from "./create_download_request.ts";
import { listDownloadRequests } from "./list_download_requests.ts";
import { approveDownloadRequest } from "./approve_download_request.ts";
import { rejectDownloadRequest } from "./reject_download_request.ts";
import { getStats } from "./get_stats.ts";
import { listAuditLogs } from "./list_audit_logs.ts";
import { listManifestKeys } from "./list_manifest_keys.ts";
import { whoami } from "./whoami.ts";
import {
  createRollout,
  getRolloutStatus,
  listFirmware,
  listRollouts,
  pauseRollout,
  resumeRollout,
} from "./firmware_procedures.ts";

export const factoryRouter = router({
  listBatches,
  createBatch,
  getBatch,
  getBatchStats,
  listDevices,
  generateBatchNfcFiles,
  registerDevice,
  revokeAndReissue,
  getDevice,
  generateNfcFile,
  createDownloadRequest,
  listDownloadRequests,
  approveDownloadRequest,
  rejectDownloadRequest,
  getStats,
  listAuditLogs,
  listManifestKeys,
  whoami,
  listFirmware,
  createRollout,
  listRollouts,
  pauseRollout,
  resumeRollout,
  getRolloutStatus,
});
