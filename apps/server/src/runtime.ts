import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { type Config, sandboxBilling, sandboxProviders } from "./config.ts";
import { platformSignalUrls } from "./connections/index.ts";
import { type AppContext, type ContextDeps, createContext } from "./context.ts";
import { connectDatabase, type DatabaseHandle } from "./db/database.ts";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "./db/embedded.ts";
import { migrate } from "./db/migrate.ts";
import { type Clock, systemClock } from "./lib/clock.ts";
import { serviceLogger } from "./lib/logger.ts";
import { loadSecrets } from "./lib/secrets.ts";

/** `migrate` applies the migrations and creates the job queue's tables and queues, then stops. */
export type Role = "api" | "worker" | "all" | "migrate";

/** The pool of a process that joined the embedded database another process started. */
const GUEST_POOL_SIZE = 4;

export const WEB_DIST = resolve(dirname(fileURLToPath(import.meta.url)), "../../web/dist");

export interface Keepsake {
  ctx: AppContext;
  app: FastifyInstance | null;
  /** Where the API listens, when it does. */
  url: string | null;
  /** The migrations this process applied at start (none when another process had). */
  migrationsApplied: string[];
  close(): Promise<void>;
}

/**
 * Opens the database — DATABASE_URL, or the embedded PostgreSQL under DATA_DIR (started by the
 * first process on that DATA_DIR, joined by the others) — and applies pending migrations.
 */
export async function openDatabase(
  config: Config,
  options: { databaseUrl?: string } = {},
): Promise<{
  database: DatabaseHandle;
  url: string;
  applied: string[];
  close(): Promise<void>;
}> {
  let embedded: EmbeddedPostgres | null = null;
  let url = options.databaseUrl ?? config.DATABASE_URL;
  if (!url) {
    embedded = await startEmbeddedPostgres({ dataDir: config.DATA_DIR });
    url = embedded.url;
  }
  const database = connectDatabase({
    url,
    // A process joining another's embedded database keeps a small pool, so a worker and the
    // CLI beside `npm start` stay far below the server's max_connections.
    max:
      embedded && !embedded.owner
        ? Math.min(config.DATABASE_POOL_SIZE, GUEST_POOL_SIZE)
        : config.DATABASE_POOL_SIZE,
    checkoutTimeoutMs: config.DATABASE_POOL_TIMEOUT_SECONDS * 1000,
  });
  let applied: string[];
  try {
    applied = await migrate(database.pool);
  } catch (err) {
    await database.close();
    await embedded?.close();
    throw err;
  }
  return {
    database,
    url,
    applied,
    async close() {
      await database.close();
      await embedded?.close();
    },
  };
}

/**
 * Opens the database, then starts the roles asked for. `close` stops them in reverse order.
 */
export async function startKeepsake(options: {
  config: Config;
  role: Role;
  clock?: Clock;
  /** Test hook: an already running database. */
  databaseUrl?: string;
  logger?: boolean;
  /** Sandbox mode: use this already running sandbox instead of starting one on SANDBOX_PORT. */
  sandboxUrl?: string;
  /** Backup engine tunables (tests and the benchmark). */
  engineSettings?: ContextDeps["engineSettings"];
}): Promise<Keepsake> {
  const { role } = options;
  let config = options.config;
  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => {});
  };
  try {
    const opened = await openDatabase(config, options);
    closers.push(opened.close);
    const { database, url } = opened;

    // Sandbox mode: the provider emulators stand in for Meta and Google. The api role runs
    // them in-process; a worker on its own expects them where the api role put them.
    let sandboxOrigin: string | null = null;
    let sandboxSmtp = `smtp://127.0.0.1:${config.SANDBOX_SMTP_PORT}`;
    if (config.sandboxMode && role !== "migrate") {
      // A development dependency: a production install (npm prune --omit=dev) has no sandbox.
      // A worker needs only the sandbox's credentials; the emulators load where they run.
      const missing = () => {
        throw new Error(
          "Sandbox mode needs the development dependencies (npm install). For live mode set the Instagram, Facebook and Google credentials (docs/configuration.md, Sandbox and live mode).",
        );
      };
      const credentials = await import("@keepsake/sandbox/credentials").catch(missing);
      sandboxOrigin = options.sandboxUrl ?? `http://127.0.0.1:${config.SANDBOX_PORT}`;
      if (!options.sandboxUrl && role !== "worker") {
        const sandbox = await import("@keepsake/sandbox").catch(missing);
        const running = await sandbox.startSandbox({
          port: config.SANDBOX_PORT,
          smtpPort: config.SANDBOX_SMTP_PORT,
          largeVideoBytes: config.SANDBOX_LARGE_VIDEO_BYTES,
          dataDir: join(config.DATA_DIR, "sandbox"),
          // The sandbox's Stripe signs its webhook events and delivers them here.
          stripeWebhookUrl: `${config.appUrl}/api/webhooks/stripe`,
          // Its Meta apps and Google project tell Keepsake what a demo person did (/apps).
          appCallbacks: platformSignalUrls(config.appUrl),
        });
        closers.push(() => running.close());
        sandboxOrigin = running.url;
        sandboxSmtp = running.urls.smtp;
      }
      config = {
        ...config,
        // Mail goes to the sandbox's SMTP server unless SMTP_URL names another.
        SMTP_URL: config.SMTP_URL ?? sandboxSmtp,
        providers: sandboxProviders(
          sandboxOrigin,
          credentials.SANDBOX_CREDENTIALS,
          config.GRAPH_API_VERSION,
        ),
        billing:
          config.billing ??
          sandboxBilling(
            sandboxOrigin,
            credentials.SANDBOX_CREDENTIALS.stripe,
            credentials.SANDBOX_PRICES,
          ),
      };
    }

    const ctx = createContext({
      config,
      db: database.db,
      pool: database.pool,
      clock: options.clock ?? systemClock,
      secrets: loadSecrets(config),
      databaseUrl: url,
      ...(options.engineSettings ? { engineSettings: options.engineSettings } : {}),
      ...(options.logger === false ? {} : { log: serviceLogger(config.LOG_LEVEL) }),
    });
    await ctx.queue.start();
    const graceMs = config.SHUTDOWN_GRACE_SECONDS * 1000;
    closers.push(() => ctx.queue.stop({ graceMs }));
    if (role === "worker" || role === "all") {
      await ctx.queue.work(ctx);
      await ctx.status.heartbeat();
    }
    if (role === "worker" && config.METRICS_PORT !== undefined) {
      const { serveWorkerMetrics } = await import("./http/metrics.ts");
      const server = await serveWorkerMetrics({
        port: config.METRICS_PORT,
        host: config.HOST,
        token: config.METRICS_TOKEN,
      });
      closers.push(() => new Promise((resolve) => server.close(resolve)));
    }

    let app: FastifyInstance | null = null;
    let listening: string | null = null;
    if (role === "api" || role === "all") {
      // Loaded only by roles that serve HTTP: a worker never loads Fastify and its plugins.
      const { buildApp } = await import("./http/app.ts");
      app = await buildApp(ctx, {
        webDist: WEB_DIST,
        ...(sandboxOrigin ? { mediaOrigins: [new URL(sandboxOrigin).origin] } : {}),
        ...(options.logger === false ? { logger: false } : {}),
      });
      const api = app;
      closers.push(async () => {
        // Stops accepting at once (and answers 503 on kept-alive connections); requests in
        // flight get the grace period, then their connections are closed.
        const force = setTimeout(() => api.server.closeAllConnections(), graceMs);
        // A kept-alive connection whose request just finished is idle now: close it, so a
        // client's next request goes to another process instead of waiting here.
        const idle = setInterval(() => api.server.closeIdleConnections(), 100);
        await api.close();
        clearTimeout(force);
        clearInterval(idle);
      });
      await app.listen({ port: config.PORT, host: config.HOST });
      const address = app.server.address();
      const port = typeof address === "object" && address ? address.port : config.PORT;
      listening = `http://localhost:${port}`;
    }
    return { ctx, app, url: listening, migrationsApplied: opened.applied, close };
  } catch (err) {
    await close();
    throw err;
  }
}
