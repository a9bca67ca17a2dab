/**
 * Where the files domain keeps objects, in one place: a ticket's staged upload under
 * `uploads/{userId}/{scope}/{fileId}`, its confirmed copy under `files/` (a prefix tickets
 * never sign). The scope is the uploader's path segments, e.g. a device id or `raw-items`.
 */
import { uuidv7 } from "../../infra/lib/ids.ts";

/** The staged upload a ticket signs. */
export function uploadKey(userId: string, scope: string, fileId: string): string {
  return `uploads/${userId}/${scope}/${fileId}`;
}

/** A new key for the confirmed copy of a staged upload (`stagedKey` is its `uploadKey`). */
export function confirmedKey(userId: string, stagedKey: string, fileId: string): string {
  return storedKey(userId, stagedKey.split("/").slice(2, -1).join("/"), fileId);
}

/** A file the service stores itself, confirmed from the start (e.g. a linked page's picture). */
export function storedKey(userId: string, scope: string, fileId: string): string {
  return `files/${userId}/${scope}/${fileId}/${uuidv7()}`;
}

/** Every prefix holding the user's files of one scope (a device leaving its owner). */
export function scopePrefixes(userId: string, scope: string): string[] {
  return [`uploads/${userId}/${scope}/`, `files/${userId}/${scope}/`];
}

/** Every prefix holding the user's files (account deletion). */
export function userPrefixes(userId: string): string[] {
  return [`uploads/${userId}/`, `files/${userId}/`];
}
