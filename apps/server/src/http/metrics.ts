import type { FastifyInstance } from "fastify";
import client from "prom-client";

const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });
const httpDuration = new client.Histogram({
  name: "keepsake_http_request_duration_seconds",
  help: "HTTP request duration by method, route and status",
  labelNames: ["method", "route", "status"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/** Prometheus metrics at /metrics: process defaults and request durations by route. */
export function registerMetrics(app: FastifyInstance) {
  app.addHook("onResponse", async (req, reply) => {
    httpDuration.observe(
      {
        method: req.method,
        route: req.routeOptions.url ?? "unmatched",
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });
  app.get("/metrics", async (_req, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
}
