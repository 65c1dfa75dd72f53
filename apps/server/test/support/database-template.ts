import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import type { AppContext } from "../../src/context.ts";
import { connectDatabase } from "../../src/db/database.ts";
import { startEmbeddedPostgres } from "../../src/db/embedded.ts";
import { migrate } from "../../src/db/migrate.ts";
import { jobRegistry } from "../../src/job-registry.ts";
import { createJobQueue } from "../../src/jobs/queue.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /**
     * The run's embedded PostgreSQL when TEST_DATABASE_URL is unset: its superuser's URL (to
     * create and drop databases) and the app role's URL (database `keepsake`).
     */
    embeddedDatabase: { adminUrl: string; url: string } | null;
  }
}

/** The migrated database every test file's database is copied from (CREATE DATABASE … TEMPLATE). */
export const TEMPLATE = "keepsake_template";

/**
 * Global set-up of the server suite: without TEST_DATABASE_URL, one embedded PostgreSQL for the
 * whole run (in a temporary DATA_DIR, without fsync), with one database migrated and holding
 * the queue's schema and queues, which every test file's database copies (support/database.ts)
 * instead of running the migrations and pg-boss's schema again.
 */
export default async function setup(project: TestProject) {
  if (process.env.TEST_DATABASE_URL) {
    project.provide("embeddedDatabase", null);
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), "keepsake-test-db-"));
  chmodSync(dataDir, 0o755);
  const embedded = await startEmbeddedPostgres({ dataDir, durable: false });
  try {
    const admin = new pg.Client({ connectionString: embedded.adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${TEMPLATE} OWNER keepsake`);
    await admin.end();
    const u = new URL(embedded.url);
    u.pathname = `/${TEMPLATE}`;
    const url = u.toString();
    const handle = connectDatabase({ url, max: 2 });
    await migrate(handle.pool);
    const queue = createJobQueue<AppContext>({
      connectionString: url,
      schema: "pgboss",
      jobs: jobRegistry,
    });
    await queue.start();
    await queue.stop({ graceMs: 0, unwindMs: 0 });
    await handle.close();
    // Copied only once nobody is connected to it: no connection from now on, and those
    // just closed (pg-boss's among them) ended.
    const admin2 = new pg.Client({ connectionString: embedded.adminUrl });
    await admin2.connect();
    await admin2.query(`ALTER DATABASE ${TEMPLATE} WITH ALLOW_CONNECTIONS false IS_TEMPLATE true`);
    await admin2.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
      [TEMPLATE],
    );
    for (let i = 0; i < 100; i++) {
      const { rows } = await admin2.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1",
        [TEMPLATE],
      );
      if (rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await admin2.end();
  } catch (err) {
    await embedded.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  project.provide("embeddedDatabase", { adminUrl: embedded.adminUrl, url: embedded.url });
  return async () => {
    await embedded.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
