/** Displays as the tests make them: fresh MACs, and a display set up and claimed by a new user. */
import { expectStatus } from "./assert.ts";
import { type Client, registerUser } from "./http.ts";

let counter = 0;

/**
 * A fresh MAC, as the firmware sends it: upper-case hex pairs with colons. `prefix` (one byte)
 * keeps each test file's MACs apart on a shared database.
 */
export function newMac(prefix = "A4"): string {
  const n = (Date.now() * 256 + counter++) % 2 ** 40;
  return (prefix + n.toString(16).padStart(10, "0")).toUpperCase().match(/../g)!.join(":");
}

/** A display (model `og`) set up and claimed by a fresh user. */
export async function claimedDisplay(api: Client, prefix?: string) {
  const user = await registerUser(api);
  const mac = newMac(prefix);
  const s = expectStatus(await api.get("/api/setup", { headers: { ID: mac, Model: "og" } }), 200);
  const claim = expectStatus(
    await api.post("/api/devices/claim", {
      token: user.accessToken,
      body: { code: s.friendly_id },
    }),
    200,
  );
  return { user, mac, key: s.api_key as string, device: claim.device };
}
