import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { ownerClause } from "./database-template.ts";

export interface TestDatabase {
  url: string;
  close(): Promise<void>;
}

async function asAdmin(adminUrl: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/**
 * A new database on the run's PostgreSQL (support/database-template.ts: TEST_DATABASE_URL's
 * server, else the embedded one), owned by the app's role (on the embedded one not a superuser,
 * as `npm start` connects): a copy of the migrated template, or empty with `empty`. Its URL is
 * the app role's.
 */
export async function createServerDatabase(
  options: { empty?: boolean } = {},
): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const run = inject("testDatabases");
  const name = `t_${randomBytes(6).toString("hex")}`;
  const template = options.empty ? "template0" : run.template;
  await asAdmin(run.adminUrl, `CREATE DATABASE ${name} TEMPLATE ${template}${ownerClause(run)}`);
  const u = new URL(run.url);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    name,
    drop: () => asAdmin(run.adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** A clean database for one test file, copied from the run's migrated template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const db = await createServerDatabase();
  return { url: db.url, close: db.drop };
}
