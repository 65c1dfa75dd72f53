import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type pg from "pg";

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), "migrations");
/** Any fixed number: every process that migrates takes this lock first. */
const MIGRATION_LOCK = 724_311_001;

export function listMigrations(): { name: string; sql: string }[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(MIGRATIONS_DIR, name), "utf8") }));
}

let names: string[] | null = null;

/**
 * The migrations this build has that the database has not applied (readiness checks it: a
 * process of a newer build is not ready on a database an older one migrated).
 */
export async function pendingMigrations(pool: pg.Pool | pg.PoolClient): Promise<string[]> {
  names ??= listMigrations().map((m) => m.name);
  const { rows } = await pool.query<{ name: string }>(
    "SELECT name FROM schema_migrations WHERE name = ANY($1::text[])",
    [names],
  );
  const applied = new Set(rows.map((r) => r.name));
  return names.filter((n) => !applied.has(n));
}

/**
 * Applies the versioned SQL migrations not yet applied, each in its own transaction, once however
 * many processes start together: the advisory lock makes them take turns, and each migration
 * checks again inside its own transaction that no one applied it meanwhile.
 */
export async function migrate(pool: pg.Pool): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         name text PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const done = new Set(
      (await client.query<{ name: string }>("SELECT name FROM schema_migrations")).rows.map(
        (r) => r.name,
      ),
    );
    for (const m of listMigrations()) {
      if (done.has(m.name)) continue;
      await client.query("BEGIN");
      try {
        const again = await client.query("SELECT 1 FROM schema_migrations WHERE name = $1", [
          m.name,
        ]);
        if (again.rowCount) {
          await client.query("ROLLBACK");
          continue;
        }
        await client.query(m.sql);
        await client.query("INSERT INTO schema_migrations (name) VALUES ($1)", [m.name]);
        await client.query("COMMIT");
        applied.push(m.name);
      } catch (err) {
        await client.query("ROLLBACK");
        throw new Error(`Migration ${m.name} failed: ${(err as Error).message}`);
      }
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
  return applied;
}
