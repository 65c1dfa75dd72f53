import { statusSubscribeRequest } from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import { parseOr422 } from "../lib/errors.ts";

/** The public /status page's data and its subscribe box. */
export function registerStatusRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get("/api/status", async (_req, reply) => {
    reply.header("Cache-Control", "no-store");
    return ctx.status.report();
  });

  app.post("/api/status/subscribe", async (req) => {
    const { email } = parseOr422(statusSubscribeRequest, req.body);
    return ctx.status.subscribe(email);
  });
}
