import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";

/** The drive_folders table: the Drive folder ids a backup found or made, per Google account. */
export function createDriveFoldersRepository(db: Kysely<Database>) {
  return {
    findFolder(userId: string, googleSub: string, path: string) {
      return db
        .selectFrom("drive_folders")
        .select(["folder_id", "created_at", "adopted"])
        .where("user_id", "=", userId)
        .where("google_sub", "=", googleSub)
        .where("path", "=", path)
        .executeTakeFirst();
    },

    /**
     * Records a folder (`adopted`: found in Drive, not created); answers the record that won
     * when two workers raced.
     */
    async saveFolder(
      userId: string,
      googleSub: string,
      path: string,
      folderId: string,
      adopted: boolean,
      now: Date,
    ) {
      await db
        .insertInto("drive_folders")
        .values({
          user_id: userId,
          google_sub: googleSub,
          path,
          folder_id: folderId,
          adopted,
          created_at: now,
        })
        .onConflict((oc) => oc.columns(["user_id", "google_sub", "path"]).doNothing())
        .execute();
      return (await this.findFolder(userId, googleSub, path))!;
    },

    async forgetFolder(userId: string, googleSub: string, path: string) {
      await db
        .deleteFrom("drive_folders")
        .where("user_id", "=", userId)
        .where("google_sub", "=", googleSub)
        .where("path", "=", path)
        .execute();
    },
  };
}

export type DriveFoldersRepository = ReturnType<typeof createDriveFoldersRepository>;
