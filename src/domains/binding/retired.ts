/** SPEC 4.5, 9.5: the claim-code endpoints are retired and answer 410 permanently. */
import { z } from "zod";
import { AppError } from "../../errors.ts";
import { publicProcedure } from "../../infra/trpc/auth.ts";

const gone = () => {
  throw new AppError("gone", "Claim codes are retired; bind devices by NFC");
};

/** POST /api/devices/bind/code: always 410. */
export const bindCode = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/devices/bind/code",
      tags: ["devices"],
      summary: "Retired: bind by claim code",
      deprecated: true,
      errorResponses: { 410: "Retired; bind by NFC" },
    },
  })
  .input(z.object({}).loose())
  // Never succeeds: the document lists only the 410.
  .output(z.never())
  .mutation(gone);

/** POST /api/devices/{id}/refresh-code: always 410 (pairing is NFC-only). */
export const refreshCode = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/devices/{id}/refresh-code",
      tags: ["devices"],
      summary: "Retired: refresh the claim code",
      deprecated: true,
      errorResponses: { 410: "Retired; pairing is NFC-only" },
    },
  })
  .input(z.object({ id: z.string() }).loose())
  .output(z.never())
  .mutation(gone);
