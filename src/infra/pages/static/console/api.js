// Calls to this service's public API with the signed-in user's access token. A 401 tries the
// refresh token once (POST /auth/refresh) and repeats the call; a renewed token in
// X-Renewed-Token replaces the one held. Errors become ApiError with the service's message.
import { session } from "./session.js";

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function errorOf(res) {
  try {
    const body = await res.json();
    if (typeof body.error === "string") return body.error;
    if (body.error && body.error.message) return body.error.message;
  } catch { /* not JSON */ }
  return `The service answered ${res.status}`;
}

function send(path, { method = "GET", body, type, token, headers: extra } = {}) {
  const headers = { ...extra };
  if (token) headers.authorization = `Bearer ${token}`;
  let payload = body;
  if (body !== undefined && !type) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body);
  } else if (type) headers["content-type"] = type;
  return fetch(path, { method, headers, body: payload });
}

/** One call; `raw: true` answers the Response (an image), else the parsed JSON body. */
export async function api(path, options = {}) {
  let res = await send(path, { ...options, token: session.accessToken });
  if (res.status === 401 && session.refreshToken && await session.refresh()) {
    res = await send(path, { ...options, token: session.accessToken });
  }
  if (res.status === 401 && session.accessToken) session.clear();
  const renewed = res.headers.get("x-renewed-token");
  if (renewed) session.renew(renewed);
  if (!res.ok) throw new ApiError(res.status, await errorOf(res));
  if (options.raw) return res;
  return res.status === 204 ? null : res.json();
}

/** A call without the user's token (sign-in, sign-up, refresh). */
export async function publicApi(path, body) {
  const res = await send(path, { method: "POST", body });
  if (!res.ok) throw new ApiError(res.status, await errorOf(res));
  return res.json();
}
