import type { DestinationKind } from "@keepsake/contracts";
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import type { BackupFileRow } from "./tables.ts";

/** The backup_files table: what each item of a backup left in its destination (the ledger's rows). */
export function createBackupFilesRepository(db: Kysely<Database>) {
  return {
    /** What the backup wrote to `destination` (each destination keeps its own records). */
    backupFiles(backupId: string, destination: DestinationKind): Promise<BackupFileRow[]> {
      return db
        .selectFrom("backup_files")
        .selectAll()
        .where("backup_id", "=", backupId)
        .where("destination", "=", destination)
        .execute();
    },

    /** One item's row, keyed by backup, destination (Google Drive unless given) and item (1200). */
    async saveBackupFile(
      f: Partial<Omit<BackupFileRow, "backup_id" | "item_key" | "updated_at">> & {
        backup_id: string;
        destination: DestinationKind;
        item_key: string;
        name: string;
      },
      now: Date,
    ) {
      const { backup_id, destination, item_key, ...rest } = f;
      await db
        .insertInto("backup_files")
        .values({ ...f, updated_at: now })
        .onConflict((oc) =>
          oc
            .columns(["backup_id", "destination", "item_key"])
            .doUpdateSet({ ...rest, updated_at: now }),
        )
        .execute();
    },
  };
}
