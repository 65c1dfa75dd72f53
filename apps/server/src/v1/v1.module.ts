import { API_RATE_LIMIT_PER_MINUTE } from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ModuleBase } from "../area-module.ts";
import { createRateLimiter } from "./rate-limit.ts";
import { apiKeyGuard } from "./v1.auth.ts";
import { registerV1Routes, type V1RouteDeps } from "./v1.routes.ts";

/** The public API (/api/v1) over the sync and library services, behind an API key. */
export function createV1Module(
  deps: Pick<ModuleBase, "clock"> &
    Omit<V1RouteDeps, "requireApiKey"> & {
      /** The api-keys area's: the hits of a key's current rate window. */
      hitRateWindow(keyId: string, windowStart: Date): Promise<number>;
    },
) {
  const limiter = createRateLimiter({
    limit: API_RATE_LIMIT_PER_MINUTE,
    windowMs: 60_000,
    clock: deps.clock,
    count: deps.hitRateWindow,
  });
  /** onRequest hook of /api/v1: an API key, within its rate limit. */
  const requireApiKey = apiKeyGuard(deps.apiKeys, limiter);
  return {
    requireApiKey,
    routes: (app: FastifyInstance) => registerV1Routes(app, { ...deps, requireApiKey }),
  };
}
export type V1Module = ReturnType<typeof createV1Module>;
