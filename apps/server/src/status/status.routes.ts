import {
  statusResponse,
  statusSubscribeRequest,
  statusSubscribeResponse,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { AppContext } from "../context.ts";
import { PUBLIC } from "../http/openapi.ts";

const tags = ["status"];

/** The public /status page's data and its subscribe box. */
export function registerStatusRoutes(app: FastifyInstance, ctx: AppContext) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    "/api/status",
    { schema: { tags, security: PUBLIC, response: { 200: statusResponse } } },
    async (_req, reply) => {
      reply.header("Cache-Control", "no-store");
      return ctx.status.report();
    },
  );

  r.post(
    "/api/status/subscribe",
    {
      schema: {
        tags,
        security: PUBLIC,
        body: statusSubscribeRequest,
        response: { 200: statusSubscribeResponse },
      },
    },
    async (req) => ctx.status.subscribe(req.body.email),
  );
}
