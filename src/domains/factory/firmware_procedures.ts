/** Firmware registry procedures (issue 24), mounted under /internal/factory. */
import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { withExample } from "../../infra/http/operation.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { paging } from "./inputs.ts";
import { pageOf } from "./views.ts";
import {
  firmwareBuildSchema,
  rolloutSchema,
  rolloutStatusSchema,
  TARGET_KINDS,
} from "./firmware_views.ts";

/** GET /internal/factory/firmware: builds fitting a SKU of the caller's scope. */
export const listFirmware = factoryProcedure("listFirmware")
  .meta(factoryMeta("GET", "/firmware", "List firmware builds", { 400: "Invalid query" }))
  .input(z.object(paging(50, 200)))
  .output(pageOf(firmwareBuildSchema))
  .query(({ ctx, input }) => ctx.services.factory.firmware.list(ctx.principal, input));

/** POST /internal/factory/firmware/{buildId}/rollouts (supervisor): assign a build. */
export const createRollout = factoryProcedure("createRollout")
  .meta({
    ...factoryMeta("POST", "/firmware/{buildId}/rollouts", "Assign a build to a target", {
      400: "Invalid body, or the build does not fit the target",
      403: "Not a supervisor, or the target outside the scope",
      404: "Build or batch not found",
      409: "The build is already assigned to that target",
    }),
    status: 201,
  })
  .input(withExample(
    z.object({
      buildId: uuidParam,
      targetKind: z.enum(TARGET_KINDS),
      target: z.string().trim().min(1).max(100).meta({
        description: "A batch id (batch), a SKU (sku) or a model such as `og` (model)",
      }),
    }),
    { buildId: "0193a0c0-5d2e-7c4b-9a1f-2b6e8d4c7a10", targetKind: "sku", target: "SKU-A" },
  ))
  .output(rolloutSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.factory.firmware.assign(ctx.principal, input.buildId, {
      kind: input.targetKind,
      value: input.target,
    })
  );

/** GET /internal/factory/rollouts. */
export const listRollouts = factoryProcedure("listRollouts")
  .meta(factoryMeta("GET", "/rollouts", "List firmware rollouts", { 400: "Invalid query" }))
  .input(z.object({
    buildId: uuidParam.optional(),
    status: z.enum(["active", "paused"]).optional(),
    ...paging(50, 200),
  }))
  .output(pageOf(rolloutSchema))
  .query(({ ctx, input }) => ctx.services.factory.firmware.listRollouts(ctx.principal, input));

const rolloutWrite = {
  400: "rolloutId is not a UUID",
  403: "Not a supervisor, or the target outside the scope",
  404: "Rollout not found",
};

/** POST /internal/factory/rollouts/{rolloutId}:pause (supervisor). */
export const pauseRollout = factoryProcedure("pauseRollout")
  .meta(factoryMeta("POST", "/rollouts/{rolloutId}:pause", "Pause a rollout", rolloutWrite))
  .input(z.object({ rolloutId: uuidParam }))
  .output(rolloutSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.factory.firmware.setStatus(ctx.principal, input.rolloutId, "paused")
  );

/** POST /internal/factory/rollouts/{rolloutId}:resume (supervisor). */
export const resumeRollout = factoryProcedure("resumeRollout")
  .meta(factoryMeta("POST", "/rollouts/{rolloutId}:resume", "Resume a rollout", rolloutWrite))
  .input(z.object({ rolloutId: uuidParam }))
  .output(rolloutSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.factory.firmware.setStatus(ctx.principal, input.rolloutId, "active")
  );

/** GET /internal/factory/rollouts/{rolloutId}/status: the versions its devices report. */
export const getRolloutStatus = factoryProcedure("getRolloutStatus")
  .meta(factoryMeta("GET", "/rollouts/{rolloutId}/status", "A rollout's progress", {
    400: "rolloutId is not a UUID",
    404: "Rollout or batch not found or outside the scope",
  }))
  .input(z.object({
    rolloutId: uuidParam,
    batchId: uuidParam.optional().meta({ description: "Only the devices of this batch" }),
  }))
  .output(rolloutStatusSchema)
  .query(({ ctx, input }) =>
    ctx.services.factory.firmware.status(ctx.principal, input.rolloutId, input.batchId)
  );
