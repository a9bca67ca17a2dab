import { TRPCError } from "@trpc/server";
import { assert } from "../../../tests/helpers/assert.ts";
import { AppError } from "../../errors.ts";
import { toAppError } from "../http/envelope.ts";
import { isDatabaseUnavailable } from "./errors.ts";

const coded = (code: string, message = "x") => Object.assign(new Error(message), { code });

Deno.test("isDatabaseUnavailable: connection failures of postgres.js, sockets and SQLSTATE", () => {
  for (
    const error of [
      coded("ECONNREFUSED"),
      coded("CONNECTION_CLOSED"),
      coded("CONNECT_TIMEOUT"),
      coded("57P01"), // admin_shutdown
      coded("57P03"), // cannot_connect_now
      coded("08006"), // connection_failure
      coded("53300"), // too_many_connections
      new Error("Connection terminated unexpectedly"),
      new AggregateError([coded("ECONNREFUSED")]),
      new Error("wrapped", { cause: coded("ECONNRESET") }),
    ]
  ) assert.ok(isDatabaseUnavailable(error), String(error));
});

Deno.test("isDatabaseUnavailable: query errors and everything else are not outages", () => {
  for (
    const error of [
      coded("23505"), // unique_violation
      coded("22021"), // NUL in text
      coded("42P01"), // undefined_table: a bug, not an outage
      new Error("boom"),
      new AppError("invalid_request", "no"),
      null,
      undefined,
      "ECONNREFUSED",
    ]
  ) assert.ok(!isDatabaseUnavailable(error), String(error));
});

Deno.test("toAppError: an outage is 503 with Retry-After, through tRPC too; a bug stays 500", () => {
  const outage = toAppError(
    new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: coded("57P01") }),
  );
  assert.equal(outage.status, 503);
  assert.equal(outage.code, "unavailable");
  assert.equal(outage.message, "Service temporarily unavailable, try again shortly");
  assert.deepEqual(outage.headers, { "Retry-After": "5" });
  assert.equal(toAppError(coded("ECONNREFUSED")).status, 503);
  assert.equal(toAppError(coded("42P01")).status, 500);
});
