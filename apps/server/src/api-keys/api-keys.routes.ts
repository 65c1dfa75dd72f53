import {
  apiKeyMessages,
  apiKeysResponse,
  createApiKeyRequest,
  createdApiKey,
  revokeApiKeyResponse,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type AuthGuards, principalOf } from "../auth/index.ts";
import { AppError } from "../lib/errors.ts";
import type { ApiKeysService } from "./api-keys.service.ts";

const uuid = z.uuid();

/** What these routes use of the application. */
export interface ApiKeysRouteDeps {
  apiKeys: ApiKeysService;
  guards: AuthGuards;
}

/** Settings → API keys (session API): list, create (the key is shown once), revoke. */
export function registerApiKeyRoutes(app: FastifyInstance, ctx: ApiKeysRouteDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { apiKeys, guards } = ctx;
  const onRequest = guards.requireUser;
  const tags = ["api-keys"];

  r.get(
    "/api/api-keys",
    { onRequest, schema: { tags, response: { 200: apiKeysResponse } } },
    async (req) => apiKeys.list(principalOf(req).user.id),
  );

  r.post(
    "/api/api-keys",
    {
      onRequest,
      schema: { tags, body: createApiKeyRequest, response: { 201: createdApiKey } },
    },
    async (req, reply) => {
      const created = await apiKeys.create(principalOf(req).user.id, req.body.name);
      return reply.code(201).header("Cache-Control", "no-store").send(created);
    },
  );

  r.delete(
    "/api/api-keys/:id",
    {
      onRequest,
      schema: {
        tags,
        params: z.object({ id: z.string() }),
        response: { 200: revokeApiKeyResponse },
      },
    },
    async (req) => {
      const id = uuid.safeParse(req.params.id);
      if (!id.success) throw new AppError("not_found", apiKeyMessages.notFound);
      return apiKeys.revoke(principalOf(req).user.id, id.data);
    },
  );
}
