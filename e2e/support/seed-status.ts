import { sql } from "kysely";
import { PgBoss } from "pg-boss";
import type { Db } from "../../apps/server/src/db/database.ts";
import { statusSampleJob } from "../../apps/server/src/status/status-sample.job.ts";
import { rowFactories } from "../../apps/server/test/support/factories.ts";

/** The database's URL, for the queue (seed-ops.ts `SeedEnv`). */
interface SeedEnv {
  url: string;
}

/** The status page's seed operations (part of `seedOps`): Drive's trouble, samples, their rows. */
export const statusSeedOps = {
  /**
   * Google Drive failing for longer than the status page waits before it opens an incident:
   * this minute's Drive calls mostly failed, and the component was judged degraded `minutes` ago.
   * `minutes: 0` ends it (no failed calls; the next read finds Drive operational).
   */
  async driveTrouble(db: Db, a: { minutes: number }): Promise<void> {
    const status = rowFactories(db).status;
    // The minute's scheduled sample may be running: one that read the rows before they were
    // written would write its older judgement over them (Drive "operational" since now, so no
    // incident for 5 minutes). So write when no sample runs, and again if one wrote over them.
    for (let attempt = 1; ; attempt++) {
      await noSampleRunning(db);
      await status.deleteAllCallStats();
      if (a.minutes === 0) return;
      const now = Date.now();
      const since = new Date(now - a.minutes * 60_000);
      await status.setCallStats({
        provider: "google",
        minute: new Date(now - (now % 60_000)),
        calls: 20,
        errors: 12,
      });
      await status.setComponent({
        component: "google",
        status: "degraded",
        since,
        checked_at: new Date(now),
      });
      await noSampleRunning(db);
      const row = await db
        .selectFrom("status_components")
        .select(["status", "since"])
        .where("component", "=", "google")
        .executeTakeFirst();
      if (row?.status !== "operational" && row?.since.getTime() === since.getTime()) return;
      if (attempt >= 5) throw new Error("status samples kept writing over Drive's trouble");
    }
  },

  /** What the status sampler has recorded: components, incidents and call counts (diagnostics). */
  async statusRows(db: Db, _a: Record<string, never>): Promise<unknown> {
    const [components, incidents, calls, samples] = await Promise.all([
      db.selectFrom("status_components").selectAll().execute(),
      db.selectFrom("status_incidents").selectAll().execute(),
      db.selectFrom("provider_call_stats").selectAll().execute(),
      sql`select state, created_on, started_on, completed_on from pgboss.job
          where name = 'status-sample' order by created_on desc limit 5`.execute(db),
    ]);
    return { components, incidents, calls, samples: samples.rows };
  },

  /**
   * This minute's status sample, sent now as pg-boss's cron sends it every minute: the running
   * worker takes it at once (NOTIFY) instead of at the next whole minute.
   */
  async statusSample(_db: Db, _a: Record<string, never>, env: SeedEnv): Promise<void> {
    const boss = new PgBoss({
      connectionString: env.url,
      schema: "pgboss",
      supervise: false,
      schedule: false,
      migrate: false,
    });
    await boss.start();
    try {
      if (!(await boss.send(statusSampleJob.name, {}))) throw new Error("no status-sample job");
    } finally {
      await boss.stop({ graceful: false });
    }
  },
} satisfies Record<string, (db: Db, args: never, env: SeedEnv) => Promise<unknown>>;

/** Waits (at most 20 s) until no status sample is running. */
async function noSampleRunning(db: Db): Promise<void> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pgboss.job where name = 'status-sample' and state = 'active'
    `.execute(db);
    if ((rows[0]?.n ?? 0) === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("a status sample has run for 20 s");
}
