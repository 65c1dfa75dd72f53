import type { FastifyInstance } from "fastify";
import type { ModuleBase } from "../area-module.ts";
import type { AuthGuards } from "../auth/index.ts";
import { type ApiKeysRepository, createApiKeysRepository } from "./api-keys.repository.ts";
import { registerApiKeyRoutes } from "./api-keys.routes.ts";
import { type ApiKeysService, createApiKeysService } from "./api-keys.service.ts";

/** API keys: hashed keys, and the rate windows /api/v1 counts in. */
export function createApiKeysModule(
  deps: Pick<ModuleBase, "db" | "clock"> & {
    /** The connections area's: the owner's plan (free when unknown). */
    userTier(userId: string): Promise<string | null | undefined>;
  },
) {
  const repo: ApiKeysRepository = createApiKeysRepository(deps.db);
  const apiKeys: ApiKeysService = createApiKeysService({
    repo,
    clock: deps.clock,
    userTier: async (userId) => (await deps.userTier(userId)) ?? "free",
  });
  return {
    apiKeys,
    /** One upsert per request in api_rate_windows: the hits of the key's current window. */
    hitRateWindow: (keyId: string, windowStart: Date) => repo.hitRateWindow(keyId, windowStart),
    routes: (app: FastifyInstance, guards: AuthGuards) =>
      registerApiKeyRoutes(app, { apiKeys, guards }),
  };
}
