import {
  type Expression,
  type Kysely,
  type OperationNodeSource,
  type QueryCreator,
  sql,
} from "kysely";
import type { Database } from "../db/schema.ts";
import type { SyncJobRow } from "./tables.ts";

/** The sync_jobs table (one run of a sync and its backups) and account_sync_state (last sync, Graph usage). */
export function createSyncRunsRepository(db: Kysely<Database>) {
  return {
    /**
     * Ends a backup and counts it in its running run, in one statement (one round trip, atomic
     * as a transaction is). In order:
     *
     * 1. `run` takes the run's row (`runOf`: the backups area's subquery for the backup's run).
     *    It is taken first, before the backup's row. The backup's counters (migration 0700)
     *    wait for the account's lock while that row is held. Holding the row while waiting for
     *    the run (which every backup of the run wants) would hold it far longer, and deadlock
     *    with a deletion that holds the account's lock and waits for the row. `ended` is gated
     *    on `run`, a one-time filter PostgreSQL evaluates before it reads a row.
     * 2. `ended` is the backups area's UPDATE of the backup, RETURNING its row (`sync_job_id`,
     *    `status`).
     * 3. The run counts the ended backup (failed or not), completing the run with its last one.
     *
     * Answers the ended row; undefined when the lease was lost meanwhile (nothing is counted).
     */
    async endInRun<Row extends { sync_job_id: string | null; status: string }>(
      runOf: Expression<string | null>,
      ended: (gate: Expression<boolean>) => OperationNodeSource,
      now: Date,
    ): Promise<Row | undefined> {
      const last = sql`s.posts_total > 0 AND s.posts_processed + 1 >= s.posts_total`;
      const gate = sql<boolean>`(SELECT count(*) FROM run) >= 0`;
      const r = await sql<Row>`
        WITH run AS (
          SELECT id FROM sync_jobs WHERE id = ${runOf} AND status = 'running' FOR NO KEY UPDATE
        ),
        ended AS (${ended(gate)}),
        counted AS (
          UPDATE sync_jobs AS s SET
            posts_processed = s.posts_processed + 1,
            posts_failed = s.posts_failed + (e.status = 'failed')::int,
            heartbeat_at = ${now},
            status = CASE WHEN ${last} THEN 'completed' ELSE s.status END,
            completed_at = CASE WHEN ${last} THEN ${now}::timestamptz ELSE s.completed_at END
          FROM ended AS e
          WHERE s.id = e.sync_job_id AND s.status = 'running'
        )
        SELECT * FROM ended`.execute(db);
      return r.rows[0];
    },

    /**
     * Each account's synced posts (and of them stories) and its last sync, for the accounts
     * panel: from the counters that triggers keep (migration 0700), not by counting posts.
     */
    async accountSyncStats(accountIds: string[]) {
      const out = new Map<
        string,
        { synced: number; stories: number; lastSync: Date | null; storiesRefused: boolean }
      >();
      if (accountIds.length === 0) return out;
      const [counts, states] = await Promise.all([
        db
          .selectFrom("post_counts")
          .select([
            "account_id",
            sql<string>`sum(n)`.as("synced"),
            sql<string>`sum(n) FILTER (WHERE is_story)`.as("stories"),
          ])
          .where("account_id", "in", accountIds)
          .groupBy("account_id")
          .execute(),
        db
          .selectFrom("account_sync_state")
          .select(["account_id", "last_sync_at", "stories_refused_at"])
          .where("account_id", "in", accountIds)
          .execute(),
      ]);
      const state = new Map(states.map((s) => [s.account_id, s]));
      const synced = new Map(counts.map((c) => [c.account_id, c]));
      for (const id of accountIds) {
        const c = synced.get(id);
        const at = state.get(id)?.last_sync_at;
        out.set(id, {
          synced: Number(c?.synced ?? 0),
          stories: Number(c?.stories ?? 0),
          lastSync: at ? new Date(at) : null,
          storiesRefused: (state.get(id)?.stories_refused_at ?? null) !== null,
        });
      }
      return out;
    },

    runningSyncJob(accountId: string) {
      return db
        .selectFrom("sync_jobs")
        .selectAll()
        .where("account_id", "=", accountId)
        .where("status", "=", "running")
        .executeTakeFirst();
    },

    findSyncJob(id: string) {
      return db.selectFrom("sync_jobs").selectAll().where("id", "=", id).executeTakeFirst();
    },

    /**
     * A new running job; undefined when the account already has one running, or when a job
     * with this id exists (a retry of a scheduled run: `findSyncJob` reads it).
     */
    async insertSyncJob(j: {
      id?: string;
      user_id: string;
      account_id: string;
      job_type: "scheduled_sync" | "manual";
      mode: "backup" | "refresh";
      now: Date;
    }): Promise<SyncJobRow | undefined> {
      return db
        .insertInto("sync_jobs")
        .values({
          ...(j.id ? { id: j.id } : {}),
          user_id: j.user_id,
          account_id: j.account_id,
          job_type: j.job_type,
          mode: j.mode,
          status: "running",
          started_at: j.now,
          heartbeat_at: j.now,
        })
        .onConflict((oc) => oc.doNothing())
        .returningAll()
        .executeTakeFirst();
    },

    /** Updates a job; with `synced`, records the account's sync in the same statement. */
    updateSyncJob(
      id: string,
      set: Partial<{
        status: SyncJobRow["status"];
        posts_processed: number;
        posts_total: number;
        error_message: string | null;
        completed_at: Date | null;
        heartbeat_at: Date;
      }>,
      synced?: SyncPass,
    ) {
      return withSyncPass(db, synced)
        .updateTable("sync_jobs")
        .set(set)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
    },

    /**
     * Finishes a running job (with its final counts, when given); no-op when it already ended.
     * With `synced`, records the account's sync in the same statement (whether or not the job
     * was still running).
     */
    finishSyncJob(
      id: string,
      status: "completed" | "failed" | "cancelled",
      now: Date,
      error: string | null,
      counts: { posts_total: number; posts_processed: number } | null = null,
      synced?: SyncPass,
    ) {
      return withSyncPass(db, synced)
        .updateTable("sync_jobs")
        .set({
          status,
          completed_at: now,
          heartbeat_at: now,
          error_message: error,
          ...(counts ?? {}),
        })
        .where("id", "=", id)
        .where("status", "=", "running")
        .returningAll()
        .executeTakeFirst();
    },

    /**
     * Sets a running run's counts from its backups (how many it holds, how many ended) and
     * completes it when every one ended (migration 0997); with `synced`, records the account's
     * sync in the same statement. Undefined when the run is not running.
     */
    async settleSyncRun(id: string, now: Date, synced?: SyncPass) {
      return withSyncPass(db, synced)
        .selectFrom(sql<SyncJobRow>`settle_sync_run(${id}::uuid, ${now}::timestamptz)`.as("r"))
        .selectAll()
        .executeTakeFirst() as Promise<SyncJobRow | undefined>;
    },

    /**
     * Running jobs untouched since `before` (their worker died), of every account or of one:
     * marked failed. Returns how many.
     */
    async failStaleSyncJobs(before: Date, now: Date, message: string, accountId?: string) {
      const r = await db
        .updateTable("sync_jobs")
        .set({ status: "failed", completed_at: now, error_message: message })
        .where("status", "=", "running")
        .where("heartbeat_at", "<", before)
        .$if(accountId !== undefined, (q) => q.where("account_id", "=", accountId as string))
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },

    /**
     * Running jobs whose account was disconnected (account_id is set on every insert, and
     * NULL only once its account's row was deleted): cancelled, of one user. Whatever work of
     * theirs is still queued finds no account and skips. Returns how many.
     */
    async cancelOrphanedSyncJobs(now: Date, message: string, userId: string) {
      const r = await db
        .updateTable("sync_jobs")
        .set({ status: "cancelled", completed_at: now, error_message: message })
        .where("status", "=", "running")
        .where("account_id", "is", null)
        .where("user_id", "=", userId)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },

    /**
     * The sweep before a status read, in one statement: running jobs whose heartbeat stopped
     * before `before` fail (`stale`), and running jobs left without an account (disconnected)
     * are cancelled (`disconnected`).
     */
    async endAbandonedSyncJobs(
      before: Date,
      now: Date,
      messages: { stale: string; disconnected: string },
    ) {
      const orphan = sql<boolean>`account_id IS NULL`;
      const r = await db
        .updateTable("sync_jobs")
        .set({
          status: sql`CASE WHEN ${orphan} THEN 'cancelled' ELSE 'failed' END`,
          completed_at: now,
          error_message: sql`CASE WHEN ${orphan} THEN ${messages.disconnected} ELSE ${messages.stale} END`,
        })
        .where("status", "=", "running")
        .where((eb) => eb.or([eb("account_id", "is", null), eb("heartbeat_at", "<", before)]))
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },

    listSyncJobs(userId: string, limit: number) {
      return db
        .selectFrom("sync_jobs")
        .selectAll()
        .where("user_id", "=", userId)
        .orderBy("started_at", "desc")
        .orderBy("seq", "desc")
        .limit(limit)
        .execute();
    },

    latestRunningSyncJob(userId: string) {
      return db
        .selectFrom("sync_jobs")
        .selectAll()
        .where("user_id", "=", userId)
        .where("status", "=", "running")
        .orderBy("started_at", "desc")
        .orderBy("seq", "desc")
        .executeTakeFirst();
    },

    /** The Graph usage each account's last sync saw (the scheduler's pace). */
    async graphUsage(accountIds: string[]) {
      const out = new Map<string, { percent: number | null; at: Date | null }>();
      if (accountIds.length === 0) return out;
      const rows = await db
        .selectFrom("account_sync_state")
        .select(["account_id", "graph_usage_percent", "graph_usage_at"])
        .where("account_id", "in", accountIds)
        .execute();
      for (const r of rows) {
        out.set(r.account_id, { percent: r.graph_usage_percent, at: r.graph_usage_at });
      }
      return out;
    },

    lastCompletedSync(userId: string) {
      return db
        .selectFrom("sync_jobs")
        .select((eb) => eb.fn.max("completed_at").as("at"))
        .where("user_id", "=", userId)
        .where("status", "=", "completed")
        .executeTakeFirst();
    },
  };
}

export type SyncRunsRepository = ReturnType<typeof createSyncRunsRepository>;

/** A sync's listing that reached its end or its known posts: what account_sync_state records. */
export interface SyncPass {
  accountId: string;
  now: Date;
  /** The listing reached the oldest post: the account's history is complete from now on. */
  historyComplete: boolean;
  /** The latest Graph usage reading for the account (graph-pacer), when there is one. */
  graphUsagePercent: number | null;
  /** Graph refused the stories call (Instagram Login): recorded until one is served again. */
  storiesRefused?: boolean;
}

/**
 * `db`, or with `synced` a query creator whose statement first upserts the account's sync state
 * (a data-modifying WITH: it runs whatever the main statement does), saving a round trip.
 */
function withSyncPass(db: Kysely<Database>, synced: SyncPass | undefined): QueryCreator<Database> {
  if (!synced) return db;
  const { accountId, now, historyComplete, graphUsagePercent, storiesRefused } = synced;
  const stories =
    storiesRefused === undefined
      ? {}
      : {
          stories_refused_at: storiesRefused
            ? sql<Date>`coalesce(account_sync_state.stories_refused_at, ${now})`
            : null,
        };
  const usage =
    graphUsagePercent === null
      ? {}
      : { graph_usage_percent: Math.min(100, Math.round(graphUsagePercent)), graph_usage_at: now };
  return db.with("synced", (qc) =>
    qc
      .insertInto("account_sync_state")
      .values({
        account_id: accountId,
        last_sync_at: now,
        history_complete_at: historyComplete ? now : null,
        ...usage,
        ...(storiesRefused ? { stories_refused_at: now } : {}),
      })
      .onConflict((oc) =>
        oc.column("account_id").doUpdateSet({
          last_sync_at: now,
          ...usage,
          ...stories,
          ...(historyComplete
            ? {
                history_complete_at: sql<Date>`coalesce(account_sync_state.history_complete_at, ${now})`,
              }
            : {}),
        }),
      ),
  );
}
