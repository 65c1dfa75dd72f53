/**
 * A Keepsake worker in its own process, for tests that run several and kill one.
 * Environment: WORKER_DATABASE_URL, WORKER_SANDBOX_URL, and the usual
 * Keepsake settings (JWT_SECRET, ENCRYPTION_KEY, DATA_DIR, QUEUE_SUPERVISE_SECONDS).
 * Prints "ready" once it polls for jobs. WORKER_ENGINE=default: production engine settings.
 */
import { loadConfig } from "../../src/config.ts";
import { startKeepsake } from "../../src/runtime.ts";
import { FAST_ENGINE } from "./backup.ts";

const env = process.env;
// WORKER_COUNT_QUERIES=1: count every query this process sends (the app's and the queue's);
// SIGUSR2 prints "queries <n>" (the sync benchmark reads it).
if (env.WORKER_COUNT_QUERIES) {
  const pg = (await import("pg")).default;
  let queries = 0;
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    queries++;
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
  process.on("SIGUSR2", () => console.log(`queries ${queries}`));
}
const config = loadConfig({ ...env, NODE_ENV: "test", LOG_LEVEL: "silent", PORT: "0" });
const keepsake = await startKeepsake({
  config,
  role: "worker",
  databaseUrl: env.WORKER_DATABASE_URL as string,
  sandboxUrl: env.WORKER_SANDBOX_URL as string,
  logger: false,
  // WORKER_ENGINE=default: production settings (the benchmark); otherwise the tests' fast ones.
  // WORKER_LEASE_MS: the backup lease (production's 45 s, say) with the fast settings.
  ...(env.WORKER_ENGINE === "default"
    ? {}
    : {
        engineSettings: {
          ...FAST_ENGINE,
          ...(env.WORKER_LEASE_MS ? { leaseMs: Number(env.WORKER_LEASE_MS) } : {}),
        },
      }),
});
console.log("ready");
process.on("SIGTERM", () => {
  keepsake.close().finally(() => process.exit(0));
});
