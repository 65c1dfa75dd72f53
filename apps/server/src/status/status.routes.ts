import {
  statusResponse,
  statusSubscribeRequest,
  statusSubscribeResponse,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { clientOf } from "../http/client-address.ts";
import { PUBLIC } from "../http/openapi.ts";
import type { StatusService } from "./status.service.ts";

const tags = ["status"];

/** The public /status page's data and its subscribe box. */
/** What these routes use of the application. */
export interface StatusRouteDeps {
  status: StatusService;
}

export function registerStatusRoutes(app: FastifyInstance, ctx: StatusRouteDeps) {
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
    async (req) => ctx.status.subscribe(req.body.email, clientOf(req)),
  );

  r.post(
    "/api/status/subscribe/confirm",
    {
      schema: {
        tags,
        security: PUBLIC,
        body: z.object({ token: z.string().min(1).max(200) }),
        response: { 200: statusSubscribeResponse },
      },
    },
    async (req) => ctx.status.confirmSubscription(req.body.token),
  );
}
