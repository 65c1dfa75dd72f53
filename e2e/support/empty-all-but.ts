import { sql } from "kysely";
import type { Db } from "../../apps/server/src/db/database.ts";

/**
 * Empties every table but `kept`: what a fresh install has, for the next file. The running
 * Keepsake's jobs may still hold rows the TRUNCATE must lock; when PostgreSQL picks the
 * TRUNCATE as a deadlock's victim (rolled back whole), it runs again.
 */
export async function emptyAllBut(db: Db, a: { kept: string[] }): Promise<void> {
  const { rows } = await sql<{ tablename: string }>`
    SELECT tablename FROM pg_tables WHERE schemaname = 'public'`.execute(db);
  const names = rows.map((r) => r.tablename).filter((t) => !a.kept.includes(t));
  if (!names.length) return;
  const truncate = sql.raw(`TRUNCATE ${names.map((n) => `"${n}"`).join(", ")} CASCADE`);
  for (let attempt = 1; ; attempt++) {
    try {
      await truncate.execute(db);
      return;
    } catch (err) {
      const deadlock = (err as { code?: string }).code === "40P01";
      if (!deadlock || attempt === 10) throw err;
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
}
