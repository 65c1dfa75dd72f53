import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { TEMPLATE } from "./database-template.ts";

export interface TestDatabase {
  url: string;
  schema?: string;
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
 * A new database on the run's embedded PostgreSQL (support/database-template.ts), owned by the
 * app's role (not a superuser, as `npm start` connects): a copy of the migrated template, or
 * empty with `empty`. Its URL is the app role's.
 */
export async function createEmbeddedDatabase(
  options: { empty?: boolean } = {},
): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const embedded = inject("embeddedDatabase");
  if (!embedded)
    throw new Error("The run's embedded database was not started (TEST_DATABASE_URL is set)");
  const name = `t_${randomBytes(6).toString("hex")}`;
  const template = options.empty ? "template0" : TEMPLATE;
  await asAdmin(embedded.adminUrl, `CREATE DATABASE ${name} TEMPLATE ${template} OWNER keepsake`);
  const u = new URL(embedded.url);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    name,
    drop: () => asAdmin(embedded.adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/**
 * A clean database for one test file: a fresh schema on TEST_DATABASE_URL when it is set,
 * otherwise a fresh database on the run's embedded PostgreSQL, copied from its migrated template.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    const db = await createEmbeddedDatabase();
    return { url: db.url, close: db.drop };
  }
  const schema = `t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  return {
    url,
    schema,
    async close() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.query(`DROP SCHEMA IF EXISTS ${schema}_boss CASCADE`);
      await c.end();
    },
  };
}
