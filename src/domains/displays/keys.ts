/**
 * Where the displays domain keeps the screens it draws itself (claim codes, "nothing to show
 * yet"): shared by every display that shows the same picture, named by its SHA-256. They belong
 * to no user, so account deletion has nothing of this domain to delete.
 */
export function screenKey(sha256: string): string {
  return `displays/screens/${sha256}.png`;
}
