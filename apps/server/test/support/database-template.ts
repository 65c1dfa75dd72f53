import { randomBytes } from "node:crypto";
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
import { createJobQueue, QUEUE_SCHEMA } from "../../src/jobs/queue.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /**
     * The run's PostgreSQL: TEST_DATABASE_URL's server, else an embedded one started for the run.
     * `adminUrl` creates and drops databases, `url` is the app's role (its database is replaced
     * by each file's own), `template` the migrated database each file's is copied from.
     */
    testDatabases: TestDatabases;
  }
}

type TestDatabases = { adminUrl: string; url: string; template: string };

/** The embedded run's migrated database every test file's database is copied from. */
const TEMPLATE = "keepsake_template";

/**
 * ` OWNER <role>` for a new database: the app's role when it is not the one creating databases
 * (the embedded PostgreSQL: the app connects as a role that is not a superuser), else nothing.
 */
export const ownerClause = (run: Omit<TestDatabases, "template">) =>
  run.adminUrl === run.url ? "" : ` OWNER ${new URL(run.url).username}`;

/**
 * Builds the migrated database every test file's database copies (CREATE DATABASE … TEMPLATE),
 * instead of running the migrations and pg-boss's schema again for each file: the migrations,
 * then pg-boss's schema and queues; then nobody may connect to it any more.
 */
async function buildTemplate(run: TestDatabases) {
  const { template } = run;
  const admin = new pg.Client({ connectionString: run.adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${template}${ownerClause(run)}`);
    const u = new URL(run.url);
    u.pathname = `/${template}`;
    const handle = connectDatabase({ url: u.toString(), max: 2 });
    await migrate(handle.pool);
    const queue = createJobQueue<AppContext>({
      connectionString: u.toString(),
      schema: QUEUE_SCHEMA,
      jobs: jobRegistry,
    });
    await queue.start();
    await queue.stop({ graceMs: 0, unwindMs: 0 });
    await handle.close();
    // Copied only once nobody is connected to it: no connection from now on, and those
    // just closed (pg-boss's among them) ended.
    await admin.query(`ALTER DATABASE ${template} WITH ALLOW_CONNECTIONS false IS_TEMPLATE true`);
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [
      template,
    ]);
    for (let i = 0; i < 100; i++) {
      const { rows } = await admin.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1",
        [template],
      );
      if (rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await admin.end();
  }
}

async function dropTemplate(adminUrl: string, template: string) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE ${template} WITH IS_TEMPLATE false`);
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/**
 * Global set-up of the server suite: the run's PostgreSQL (TEST_DATABASE_URL's server, else one
 * embedded PostgreSQL in a temporary DATA_DIR, without fsync) and, on it, the migrated template
 * every test file's database is copied from (support/database.ts). On a server the template's
 * name is the run's own, so runs side by side on one server do not meet.
 */
export default async function setup(project: TestProject) {
  const server = process.env.TEST_DATABASE_URL;
  if (server) {
    const run = {
      adminUrl: server,
      url: server,
      template: `keepsake_template_${randomBytes(5).toString("hex")}`,
    };
    await buildTemplate(run).catch(async (err) => {
      await dropTemplate(server, run.template).catch(() => {});
      throw err;
    });
    project.provide("testDatabases", run);
    return () => dropTemplate(server, run.template);
  }
  const dataDir = mkdtempSync(join(tmpdir(), "keepsake-test-db-"));
  chmodSync(dataDir, 0o755);
  const embedded = await startEmbeddedPostgres({ dataDir, durable: false });
  const run = { adminUrl: embedded.adminUrl, url: embedded.url, template: TEMPLATE };
  try {
    await buildTemplate(run);
  } catch (err) {
    await embedded.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  project.provide("testDatabases", run);
  return async () => {
    await embedded.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
