import { errorResponse } from "@keepsake/contracts";
import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import { createDatabaseHealth } from "../db/health.ts";
import type { JobQueue } from "../jobs/queue.ts";
import { PUBLIC } from "./openapi.ts";

const healthResponse = z.object({ status: z.string() });
/** Liveness fails only after this many failed probes in a row (besides the time limit). */
const FAILURES_BEFORE_DEAD = 3;

/**
 * `/api/health/live` and `/api/health/ready` (and their old names). Both answer within about
 * 2 s whatever the database does: the probe has its own connection and time limit
 * (`db/health.ts`).
 *
 * Readiness: the database answers, this build's migrations are applied, the queue is started.
 * Liveness: the process answers; with `livenessDatabaseSeconds` (> 0) it also fails once the
 * database has failed every probe for that long (at least three in a row), which only a restart
 * mends when the database runs inside this process. A brief hiccup never fails it: one probe
 * that answers starts the count again.
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  deps: {
    pool: Parameters<typeof createDatabaseHealth>[0];
    queue: Pick<JobQueue<unknown>, "isStarted">;
    livenessDatabaseSeconds: number;
    probeTimeoutMs?: number;
  },
) {
  const health = createDatabaseHealth(deps.pool, {
    ...(deps.probeTimeoutMs ? { timeoutMs: deps.probeTimeoutMs } : {}),
  });
  app.addHook("onClose", () => health.close());
  const limitMs = deps.livenessDatabaseSeconds * 1000;

  const probe = async () => {
    const failedBefore = health.failuresInARow() > 0;
    const result = await health.probe();
    if (!result.ok && !failedBefore)
      app.log.warn({ reason: result.reason }, "the database does not answer the health probe");
    if (result.ok && failedBefore) app.log.info("the database answers the health probe again");
    return result;
  };

  const schema = { tags: ["health"], security: PUBLIC, response: { 200: healthResponse } };
  const withUnavailable = {
    schema: { ...schema, response: { 200: healthResponse, 503: errorResponse } },
  };

  const live = async (_req: unknown, reply: FastifyReply) => {
    if (limitMs <= 0) return { status: "ok" };
    // Answered from what the probes so far found; this call starts the next one (shared).
    const stalled =
      health.failingForMs() >= limitMs && health.failuresInARow() >= FAILURES_BEFORE_DEAD;
    void probe();
    if (stalled) {
      const seconds = Math.round(health.failingForMs() / 1000);
      return reply
        .code(503)
        .send({ detail: `The database has not answered for ${seconds} s; restart the process` });
    }
    return { status: "ok" };
  };
  app.get("/api/health/live", withUnavailable, live);
  app.get("/api/health", withUnavailable, live);

  // Send it traffic only when this answers 200 (load balancers, compose health checks).
  const isReady = async (_req: unknown, reply: FastifyReply) => {
    const result = await probe();
    if (!result.ok) return reply.code(503).send({ detail: "Database unavailable" });
    const pending = result.pendingMigrations;
    if (pending.length > 0) {
      return reply.code(503).send({ detail: `Migrations not applied yet: ${pending.join(", ")}` });
    }
    if (!deps.queue.isStarted()) return reply.code(503).send({ detail: "Job queue not started" });
    return { status: "ready" };
  };
  app.get("/api/health/ready", withUnavailable, isReady);
  app.get("/api/ready", withUnavailable, isReady);
}
