/**
 * A generic REST client of the user API, generated from its OpenAPI document: registers, logs in
 * and lists the caller's devices. `deno task client` writes the types (`examples/openapi.d.ts`,
 * openapi-typescript); openapi-fetch uses them, so a wrong path, body or field does not compile.
 *
 *   deno task client && deno task start &
 *   deno run --allow-net examples/list_devices.ts [base URL, default http://localhost:8080]
 */
import createClient from "openapi-fetch";
import type { paths } from "./openapi.d.ts";

const api = createClient<paths>({ baseUrl: Deno.args[0] ?? "http://localhost:8080" });

const username = `example${Date.now().toString(36)}`;
const password = "correct horse battery staple";

const registered = await api.POST("/auth/register", {
  body: { email: `${username}@example.com`, username, password },
});
// Errors are typed too: `{"error": message}` on the main API.
if (registered.error) throw new Error(`register: ${registered.error.error}`);
console.log(`registered ${registered.data.user.username} (${registered.response.status})`);

const login = await api.POST("/auth/login", { body: { identifier: username, password } });
if (login.error) throw new Error(`login: ${login.error.error}`);
const headers = { authorization: `Bearer ${login.data.accessToken}` };

const devices = await api.GET("/api/devices", { headers });
if (devices.error) throw new Error(`devices: ${devices.error.error}`);
console.log(`${devices.data.length} device(s)`);
for (const device of devices.data) {
  console.log(`- ${device.nickname ?? device.hwId} ${device.online ? "online" : "offline"}`);
}
