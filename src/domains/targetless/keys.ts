/** Where the targetless domain keeps rendition PNGs: `renditions/{userId}/{presentationId}/`. */

/** A rendition's PNG. */
export function renditionKey(r: { user_id: string; presentation_id: string; id: string }): string {
  return `renditions/${r.user_id}/${r.presentation_id}/${r.id}.png`;
}

/** Every prefix holding the user's renditions (account deletion). */
export function userPrefixes(userId: string): string[] {
  return [`renditions/${userId}/`];
}
