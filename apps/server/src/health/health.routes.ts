import { syncHealth } from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { type AuthGuards, principalOf } from "../auth/index.ts";
import type { HealthService } from "./health.service.ts";

/** What these routes use of the application. */
export interface HealthRouteDeps {
  guards: AuthGuards;
  health: HealthService;
}

/** `GET /api/sync/health`: the caller's health state (issue 36); `/api/v1/health` in v1. */
export function registerHealthStateRoutes(app: FastifyInstance, ctx: HealthRouteDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    "/api/sync/health",
    {
      onRequest: ctx.guards.requireUser,
      schema: {
        tags: ["sync"],
        summary: "One health state per account and destination, with each cause and its fix",
        response: { 200: syncHealth },
      },
    },
    async (req) => ctx.health.health(principalOf(req).user.id),
  );
}
