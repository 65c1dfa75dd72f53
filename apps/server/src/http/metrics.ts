import { timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { FastifyInstance } from "fastify";
import client from "prom-client";
import { JOB_STATES, type QueueStats } from "../jobs/queue.ts";
import { httpDuration, registry } from "../lib/metrics.ts";
import { cameThroughProxy } from "./client-address.ts";

export interface MetricsOptions {
  /**
   * METRICS_TOKEN: required as `Authorization: Bearer …`; without it, loopback callers only, and
   * none that came through a proxy.
   */
  token: string | undefined;
}

/** What the API reads from the database at each scrape (the same on every API process). */
export interface ClusterSources {
  queueStats(): Promise<QueueStats[]>;
  /** Seconds since each automatically synced account's last successful sync. */
  syncLags(): Promise<number[]>;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

/**
 * Who may read /metrics: with METRICS_TOKEN set, whoever sends it as a bearer token; without,
 * only the machine itself (a scraper beside the process) — never a request that came through a
 * proxy (`forwarded`: it carries forwarding headers or passed a trusted proxy), which a proxy on
 * the same machine would make look local. Answers null or the refusal.
 */
export function metricsRefusal(
  authorization: string | undefined,
  remoteAddress: string | undefined,
  token: string | undefined,
  forwarded: boolean,
): { status: number; detail: string } | null {
  if (!token) {
    return remoteAddress && LOOPBACK.has(remoteAddress) && !forwarded
      ? null
      : {
          status: 403,
          detail: "Metrics are for operators: set METRICS_TOKEN to read them remotely",
        };
  }
  const given = Buffer.from(/^Bearer (.+)$/i.exec(authorization ?? "")?.[1] ?? "");
  const wanted = Buffer.from(token);
  if (given.length === wanted.length && timingSafeEqual(given, wanted)) return null;
  return { status: 401, detail: "Send the metrics token as Authorization: Bearer <METRICS_TOKEN>" };
}

/** Gauges and a histogram computed from the database when scraped. */
function clusterRegistry(sources: ClusterSources) {
  const cluster = new client.Registry();
  new client.Gauge({
    name: "keepsake_jobs",
    help: "Jobs per queue and state: waiting (ready to run), scheduled (later), active, failed (kept 7 days)",
    labelNames: ["queue", "state"] as const,
    registers: [cluster],
    async collect() {
      this.reset();
      for (const q of await sources.queueStats()) {
        for (const state of JOB_STATES) {
          this.set({ queue: q.queue, state }, q[state]);
        }
      }
    },
  });
  new client.Gauge({
    name: "keepsake_queue_delay_seconds",
    help: "How long the oldest job ready to run has waited, per queue (0 when none waits)",
    labelNames: ["queue"] as const,
    registers: [cluster],
    async collect() {
      this.reset();
      for (const q of await sources.queueStats()) this.set({ queue: q.queue }, q.delay);
    },
  });
  new client.Histogram({
    name: "keepsake_sync_lag_seconds",
    help: "Time since each automatically synced account's last successful sync (scheduled every 600 s)",
    buckets: [300, 600, 900, 1200, 1800, 3600, 7200, 21600, 86400],
    registers: [cluster],
    async collect() {
      this.reset();
      for (const lag of await sources.syncLags()) this.observe(lag);
    },
  });
  return cluster;
}

/**
 * `GET /metrics` (Prometheus) for operators: this process's metrics (Node, HTTP durations, the
 * provider calls and backups it made) and the queues and sync lag read from the database.
 */
export function registerMetrics(
  app: FastifyInstance,
  options: MetricsOptions & { cluster: ClusterSources },
) {
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
  const cluster = clusterRegistry(options.cluster);
  app.get("/metrics", async (req, reply) => {
    const refused = metricsRefusal(
      req.headers.authorization,
      req.socket.remoteAddress,
      options.token,
      cameThroughProxy(req.headers, req.ips),
    );
    if (refused) return reply.code(refused.status).send({ detail: refused.detail });
    const merged = client.Registry.merge([registry, cluster]);
    return reply.type(registry.contentType).send(await merged.metrics());
  });
}

/**
 * A worker's metrics (it serves no HTTP otherwise): `GET /metrics` on METRICS_PORT, with the same
 * access rule. Answers the server to close.
 */
export async function serveWorkerMetrics(
  options: MetricsOptions & { port: number; host: string },
): Promise<Server> {
  const server = createServer(async (req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") {
      return json(404, { detail: "Not Found" });
    }
    const refused = metricsRefusal(
      req.headers.authorization,
      req.socket.remoteAddress,
      options.token,
      cameThroughProxy(req.headers),
    );
    if (refused) return json(refused.status, { detail: refused.detail });
    try {
      const body = await registry.metrics();
      res.writeHead(200, { "content-type": registry.contentType });
      res.end(body);
    } catch {
      json(500, { detail: "Internal server error" });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return server;
}
