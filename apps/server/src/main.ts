import { ConfigError, loadConfig } from "./config.ts";
import { type Role, startKeepsake } from "./runtime.ts";

const role = (process.argv[2] ?? "all") as Role;
if (!["api", "worker", "all", "migrate"].includes(role)) {
  console.error(`Unknown role "${role}". Use one of: api, worker, all, migrate.`);
  process.exit(2);
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}

const keepsake = await startKeepsake({ config, role });
if (role === "migrate") {
  // The one-shot migration (compose.yaml's `migrate` service): the schema and the job queue's
  // tables and queues, then exit.
  const n = keepsake.migrationsApplied.length;
  await keepsake.close();
  console.log(`Migrations applied (${n} new); the job queue is ready.`);
  process.exit(0);
}
if (keepsake.url) console.log(`Keepsake (${role}) is running at ${keepsake.url}`);
else console.log(`Keepsake (${role}) is running`);

// SIGTERM (docker stop, compose, Kubernetes) or Ctrl-C: an API stops accepting and finishes its
// requests in flight, a worker stops fetching, lets its running jobs finish and hands the rest
// back (SHUTDOWN_GRACE_SECONDS), then the pools close. Bounded: whatever still hangs after the
// grace period and a margin does not keep the process alive.
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    const bound = setTimeout(
      () => {
        console.error("Shutdown took too long; exiting.");
        process.exit(1);
      },
      config.SHUTDOWN_GRACE_SECONDS * 1000 + 15_000,
    );
    bound.unref();
    keepsake.close().finally(() => process.exit(0));
  });
}
