/**
 * The factory endpoints that are not JSON in and out (SPEC 4.8): the multipart CSV import, the
 * `.nfc.json` download and the batch ZIP. In match order; the colon paths are distinct from
 * every `{param}` sibling.
 */
import type { RawRoute } from "../http/raw.ts";
import { downloadNfcFile } from "./download_nfc_file.ts";
import { downloadZip } from "./download_zip.ts";
import { importDevices } from "./import_devices.ts";

export const factoryRawRoutes: RawRoute[] = [importDevices, downloadZip, downloadNfcFile];
