/** Where the pushes domain keeps rendered bitmaps (SPEC 4.6: `render/{userId}/{deviceId}/{pushId}/`). */

/** Every rendered file of a push lives under this prefix. */
export function renderPrefix(userId: string, deviceId: string, pushId: string): string {
  return `render/${userId}/${deviceId}/${pushId}/`;
}

/** The renders of one device of the user (the device leaving its owner). */
export function devicePrefixes(userId: string, deviceId: string): string[] {
  return [`render/${userId}/${deviceId}/`];
}

/** Every prefix holding the user's renders (account deletion). */
export function userPrefixes(userId: string): string[] {
  return [`render/${userId}/`];
}
