import type { Db } from "../db/database.ts";
import type { NewDataDeletionRequest } from "./tables.ts";

/** What Meta's callbacks and Google's security events look up, and Meta's deletion requests. */
export function createPlatformSignalsRepository(db: Db) {
  return {
    /**
     * The accounts a Meta callback names: Instagram Login's callbacks name the Instagram user,
     * Facebook Login's the Facebook user who connected the account (each app-scoped).
     */
    accountsOfPlatformUser(provider: "instagram" | "facebook", platformUserId: string) {
      const q = db.selectFrom("instagram_accounts").select(["id", "user_id", "status"]);
      return (
        provider === "instagram"
          ? q
              .where("connected_via", "=", "instagram")
              .where((eb) =>
                eb.or([
                  eb("meta_user_id", "=", platformUserId),
                  eb("instagram_user_id", "=", platformUserId),
                ]),
              )
          : q.where("connected_via", "=", "facebook").where("meta_user_id", "=", platformUserId)
      ).execute();
    },

    /** The Keepsake users whose Drive is connected with this Google account. */
    async usersOfGoogleSub(sub: string): Promise<string[]> {
      const rows = await db
        .selectFrom("google_connections")
        .select("user_id")
        .where("google_sub", "=", sub)
        .execute();
      return rows.map((r) => r.user_id);
    },

    async recordDeletion(row: NewDataDeletionRequest): Promise<void> {
      await db.insertInto("data_deletion_requests").values(row).execute();
    },

    findDeletion(code: string) {
      return db
        .selectFrom("data_deletion_requests")
        .selectAll()
        .where("confirmation_code", "=", code)
        .executeTakeFirst();
    },
  };
}

export type PlatformSignalsRepository = ReturnType<typeof createPlatformSignalsRepository>;
