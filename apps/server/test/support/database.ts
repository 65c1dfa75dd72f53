import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import pg from "pg";
import { inject } from "vitest";
import { startEmbeddedPostgres } from "../../src/db/embedded.ts";

export interface TestDatabase {
  url: string;
  schema?: string;
  close(): Promise<void>;
}

let template: Blob | null | undefined;

/** The migrated database made once for the run (database-template.ts), read once per worker. */
function migratedTemplate(): Blob | null {
  if (template === undefined) {
    const file = inject("pgliteTemplate");
    template = file ? new Blob([readFileSync(file)]) : null;
  }
  return template;
}

/**
 * A clean database for one test file: a fresh schema on TEST_DATABASE_URL when it is set
 * (the real server), otherwise a fresh in-memory PGlite behind its socket, copied from the run's
 * migrated template when there is one.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    const from = migratedTemplate();
    const embedded = await startEmbeddedPostgres(from ? { from } : {});
    return { url: embedded.url, close: () => embedded.close() };
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
