import { sql } from "kysely";
import type { Db } from "../db/database.ts";

/**
 * The accounts as the sync area schedules and runs them: each Instagram account (connections/)
 * with its owner's plan and state (auth/) and its sync state (ours), in one read. A read model:
 * it never writes the other areas' tables (declared in `readsTables`).
 */
export function createAccountsRepository(db: Db) {
  return {
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
     * (or connection, when it never synced) is older than `before` (the stale-sync alert), of
     * every user or of `userId` (its health state).
     */
    staleAutoSyncAccounts(tiers: readonly string[], before: Date, userId?: string) {
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
        .$if(userId !== undefined, (q) => q.where("a.user_id", "=", userId as string))
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
      "a.media_count",
      "a.destination",
      "u.subscription_tier",
      "u.is_active",
      "st.history_complete_at",
    ])
    .where("a.id", "=", accountId);
}
