import { sql } from "kysely";
import type { Db } from "../db/database.ts";

/**
 * SQL of account deletion. Deleting the users row cascades to every table keyed by user_id
 * (sessions, OAuth states, Instagram accounts, Google connection, posts, backups, backup
 * files, sync jobs, Drive folders, sync state); rows keyed only by the e-mail address are
 * deleted here by hand.
 */
export function createUserDeletionRepository(db: Db) {
  return {
    async idsOf(userId: string) {
      const [accounts, posts] = await Promise.all([
        db.selectFrom("instagram_accounts").select("id").where("user_id", "=", userId).execute(),
        db.selectFrom("posts").select("id").where("user_id", "=", userId).execute(),
      ]);
      return { accountIds: accounts.map((a) => a.id), postIds: posts.map((p) => p.id) };
    },

    /** Removes the user and everything keyed by their id or e-mail, in one transaction. */
    async deleteUser(userId: string, email: string): Promise<boolean> {
      return db.transaction().execute(async (tx) => {
        const address = email.toLowerCase();
        await tx.deleteFrom("login_failures").where("email", "=", address).execute();
        await tx
          .deleteFrom("contact_messages")
          .where(sql<string>`lower(email)`, "=", address)
          .execute();
        await tx.deleteFrom("status_subscribers").where("email", "=", address).execute();
        const r = await tx.deleteFrom("users").where("id", "=", userId).executeTakeFirst();
        return Number(r.numDeletedRows) > 0;
      });
    },
  };
}

export type UserDeletionRepository = ReturnType<typeof createUserDeletionRepository>;
