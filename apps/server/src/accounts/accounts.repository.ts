import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { AccountStats } from "./accounts.service.ts";

export function createAccountsRepository(db: Db) {
  return {
    /** Synced posts, completed backups and the last sync of each account. */
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
          backed_up_posts_count: Number(r.backed_up ?? 0),
          last_sync: r.last_sync_at ? new Date(r.last_sync_at) : null,
        });
      }
      return out;
    },
  };
}
