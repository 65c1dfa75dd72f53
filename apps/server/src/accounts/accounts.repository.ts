import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { AccountStats } from "./accounts.service.ts";

export function createAccountsRepository(db: Db) {
  return {
    /** Synced posts (and of them stories), completed backups and the last sync of each account. */
    async stats(accountIds: string[]): Promise<Map<string, AccountStats>> {
      const out = new Map<string, AccountStats>();
      if (accountIds.length === 0) return out;
      const rows = await db
        .selectFrom("instagram_accounts as a")
        .leftJoin("account_sync_state as s", "s.account_id", "a.id")
        .select([
          "a.id",
          "s.last_sync_at",
          // From the counters that triggers keep (migration 0700), not by counting posts.
          (eb) =>
            eb
              .selectFrom("post_counts as c")
              .select(sql<string>`sum(c.n)`.as("n"))
              .whereRef("c.account_id", "=", "a.id")
              .as("synced"),
          (eb) =>
            eb
              .selectFrom("post_counts as c")
              .select(sql<string>`sum(c.n)`.as("n"))
              .whereRef("c.account_id", "=", "a.id")
              .where("c.is_story", "=", true)
              .as("stories"),
          (eb) =>
            eb
              .selectFrom("backup_counts as c")
              .select(sql<string>`sum(c.n)`.as("n"))
              .whereRef("c.account_id", "=", "a.id")
              .where("c.status", "=", "completed")
              .as("backed_up"),
        ])
        .where("a.id", "in", accountIds)
        .execute();
      for (const r of rows) {
        out.set(r.id, {
          synced_posts_count: Number(r.synced ?? 0),
          synced_stories_count: Number(r.stories ?? 0),
          backed_up_posts_count: Number(r.backed_up ?? 0),
          last_sync: r.last_sync_at ? new Date(r.last_sync_at) : null,
        });
      }
      return out;
    },

    /**
     * Fits a user's synced accounts into the plan: the first `limit` stay active (the account
     * the user chose to keep first, then those already active, oldest first), the rest are
     * paused. Connected accounts are never removed. Returns how many are paused.
     */
    async applyAccountLimit(userId: string, limit: number, keep?: string): Promise<number> {
      await sql`
        UPDATE instagram_accounts a SET paused_by_plan = r.rn > ${limit}
        FROM (
          SELECT id, row_number() OVER (
            ORDER BY (id = ${keep ?? null}::uuid) IS TRUE DESC, paused_by_plan, connected_at, id
          ) AS rn
          FROM instagram_accounts WHERE user_id = ${userId}
        ) r
        WHERE a.id = r.id AND a.paused_by_plan IS DISTINCT FROM (r.rn > ${limit})`.execute(db);
      const row = await db
        .selectFrom("instagram_accounts")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("user_id", "=", userId)
        .where("paused_by_plan", "=", true)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    // --- what the sync area reads of the accounts (with the owner and the sync state) ------
    accountWithOwner(accountId: string) {
      return accountWithOwnerQuery(db, accountId).executeTakeFirst();
    },

    /**
     * The account as a sync needs it: with its owner, its sync state and its sealed access
     * token (opened by the connections area), in one read.
     */
    accountForSync(accountId: string) {
      return accountWithOwnerQuery(db, accountId)
        .select("a.access_token_encrypted")
        .executeTakeFirst();
    },

    /** Active accounts of users whose plan syncs automatically. */
    accountsForAutoSync(tiers: readonly string[]) {
      return db
        .selectFrom("instagram_accounts as a")
        .innerJoin("users as u", "u.id", "a.user_id")
        .leftJoin("account_sync_state as st", "st.account_id", "a.id")
        .select(["a.id", "a.user_id", "st.graph_usage_percent", "st.graph_usage_at"])
        .where("a.status", "=", "active")
        .where("a.paused_by_plan", "=", false)
        .where("u.is_active", "=", true)
        .where("u.subscription_tier", "in", tiers as ("premium" | "pro" | "agency")[])
        .orderBy("a.id")
        .execute();
    },

    /**
     * Seconds since each automatically synced account's last successful sync (since it was
     * connected, when it never synced): the sync lag operators watch (/metrics).
     */
    async autoSyncLags(tiers: readonly string[]): Promise<number[]> {
      const rows = await db
        .selectFrom("instagram_accounts as a")
        .innerJoin("users as u", "u.id", "a.user_id")
        .leftJoin("account_sync_state as st", "st.account_id", "a.id")
        .select(
          sql<number>`extract(epoch FROM now() - coalesce(st.last_sync_at, a.connected_at))::float8`.as(
            "lag",
          ),
        )
        .where("a.status", "=", "active")
        .where("a.paused_by_plan", "=", false)
        .where("u.is_active", "=", true)
        .where("u.subscription_tier", "in", tiers as ("premium" | "pro" | "agency")[])
        .execute();
      return rows.map((r) => Number(r.lag));
    },

    /**
     * Active accounts of users on a plan with automatic backups whose last successful sync
     * (or connection, when it never synced) is older than `before` (the stale-sync alert).
     */
    staleAutoSyncAccounts(tiers: readonly string[], before: Date) {
      return db
        .selectFrom("instagram_accounts as a")
        .innerJoin("users as u", "u.id", "a.user_id")
        .leftJoin("account_sync_state as st", "st.account_id", "a.id")
        .select(["a.id", "a.user_id", "a.username", "st.last_sync_at", "a.connected_at"])
        .where("a.status", "=", "active")
        .where("a.paused_by_plan", "=", false)
        .where("u.is_active", "=", true)
        .where("u.subscription_tier", "in", tiers as ("premium" | "pro" | "agency")[])
        .where(sql<boolean>`coalesce(st.last_sync_at, a.connected_at) < ${before}`)
        .orderBy("a.id")
        .limit(5000)
        .execute();
    },

    /** Users with at least one connected Instagram account (the weekly digest's candidates). */
    async usersWithAccounts(): Promise<string[]> {
      const rows = await db
        .selectFrom("instagram_accounts as a")
        .innerJoin("users as u", "u.id", "a.user_id")
        .select("a.user_id")
        .distinct()
        .where("u.is_active", "=", true)
        .execute();
      return rows.map((r) => r.user_id);
    },

    userAccounts(userId: string) {
      return db
        .selectFrom("instagram_accounts")
        .select(["id", "username", "status", "status_reason", "media_count", "paused_by_plan"])
        .where("user_id", "=", userId)
        .orderBy("connected_at")
        .execute();
    },
  };
}

export type AccountsRepository = ReturnType<typeof createAccountsRepository>;

/** An account with its owner's plan and state and its sync state. */
function accountWithOwnerQuery(db: Db, accountId: string) {
  return db
    .selectFrom("instagram_accounts as a")
    .innerJoin("users as u", "u.id", "a.user_id")
    .leftJoin("account_sync_state as st", "st.account_id", "a.id")
    .select([
      "a.id",
      "a.user_id",
      "a.username",
      "a.instagram_user_id",
      "a.connected_via",
      "a.status",
      "a.status_reason",
      "a.connected_at",
      "a.paused_by_plan",
      "u.subscription_tier",
      "u.is_active",
      "st.history_complete_at",
    ])
    .where("a.id", "=", accountId);
}
