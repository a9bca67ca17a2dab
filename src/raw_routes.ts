/** Every raw route of the service, in match order. Domains add theirs here. */
import type { RawRoute } from "./http/raw.ts";
import { health } from "./http/system_routes.ts";
import { deleteAccount } from "./accounts/delete_account.ts";
import { storageDownload, storageUpload } from "./storage/routes.ts";

export const domainRawRoutes: RawRoute[] = [health, deleteAccount, storageUpload, storageDownload];
