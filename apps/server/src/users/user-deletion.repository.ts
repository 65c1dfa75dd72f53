import { createAuthRepository } from "../auth/index.ts";
import { createConnectionsRepository } from "../connections/index.ts";
import { createContactRepository } from "../contact/index.ts";
import type { Db } from "../db/database.ts";
import { inTransaction } from "../db/transaction.ts";
import { createStatusRepository } from "../status/index.ts";
import { createPostsRepository } from "../sync/index.ts";

/**
 * A user's deletion across the areas that hold their rows, each asked through its own
 * repository. Deleting the users row cascades to every table keyed by user_id (sessions, OAuth
 * states, Instagram accounts, Google connection, posts, backups, backup files, sync jobs, Drive
 * folders, sync state, …); the rows keyed only by the e-mail address are deleted by their owners
 * in the same transaction.
 */
export function createUserDeletionRepository(db: Db) {
  return {
    async idsOf(userId: string) {
      const [accounts, postIds] = await Promise.all([
        createConnectionsRepository(db).listInstagramAccounts(userId),
        createPostsRepository(db).idsOfUser(userId),
      ]);
      return { accountIds: accounts.map((a) => a.id), postIds };
    },

    /** Removes the user and everything keyed by their id or e-mail, in one transaction. */
    async deleteUser(userId: string, email: string): Promise<boolean> {
      return inTransaction(db, async (tx) => {
        const address = email.toLowerCase();
        await createContactRepository(tx).forgetAddress(address);
        await createStatusRepository(tx).forgetAddress(address);
        return createAuthRepository(tx).deleteUser(userId, address);
      });
    },
  };
}

export type UserDeletionRepository = ReturnType<typeof createUserDeletionRepository>;
