import type { DestinationKind } from "@keepsake/contracts";
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import type { BackupFileRow } from "./tables.ts";

/** The backup_files table: what each item of a backup left in its destination (the ledger's rows). */
export function createBackupFilesRepository(db: Kysely<Database>) {
  return {
    /**
     * What the backup wrote to `destination` in its account `owner` (each destination, and each
     * account of it, keeps its own records).
     */
    backupFiles(
      backupId: string,
      destination: DestinationKind,
      owner: string,
    ): Promise<BackupFileRow[]> {
      return db
        .selectFrom("backup_files")
        .selectAll()
        .where("backup_id", "=", backupId)
        .where("destination", "=", destination)
        .where("owner", "=", owner)
        .execute();
    },

    /** One item's row, keyed by backup, destination, its account there and item (1200, 1220). */
    async saveBackupFile(
      f: Partial<Omit<BackupFileRow, "backup_id" | "item_key" | "updated_at">> & {
        backup_id: string;
        destination: DestinationKind;
        owner: string;
        item_key: string;
        name: string;
      },
      now: Date,
    ) {
      const { backup_id, destination, owner, item_key, ...rest } = f;
      await db
        .insertInto("backup_files")
        .values({ ...f, updated_at: now })
        .onConflict((oc) =>
          oc
            .columns(["backup_id", "destination", "owner", "item_key"])
            .doUpdateSet({ ...rest, updated_at: now }),
        )
        .execute();
    },
  };
}
