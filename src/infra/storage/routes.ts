/**
 * The embedded object store's own HTTP face (CONTRACT.md storage): the browser-style multipart
 * upload of a signed POST policy, and signed GET downloads. Neither takes an Authorization
 * header (SPEC 5.9): the signature is the authorization.
 */
export { storageDownload } from "./download_route.ts";
export { MAX_UPLOAD_BYTES, storageUpload } from "./upload_route.ts";
