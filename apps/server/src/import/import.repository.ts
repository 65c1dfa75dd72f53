import type { DestinationKind } from "@keepsake/contracts";
import { type Insertable, sql } from "kysely";
import type { Db } from "../db/database.ts";
import { inTransaction } from "../db/transaction.ts";
import type {
  ImportFileRow,
  ImportFilesTable,
  ImportItemRow,
  ImportItemStatus,
  ImportItemsTable,
} from "./tables.ts";

/** One item of an export as the import records it, with its files. */
export type NewImportItem = Required<
  Pick<Insertable<ImportItemsTable>, "item_key" | "kind" | "caption" | "status">
> & {
  taken_at: Date;
  files: Required<Pick<Insertable<ImportFilesTable>, "file_key" | "uri" | "name" | "media_type">>[];
};

const ITEMS_PER_INSERT = 5000;
const FILES_PER_INSERT = 8000;

async function itemsWithFiles(
  db: Db,
  accountId: string,
  keys: string[],
): Promise<{ item: ImportItemRow; files: ImportFileRow[] }[]> {
  const rows = await db
    .selectFrom("import_items")
    .selectAll()
    .where("account_id", "=", accountId)
    .where(sql<boolean>`item_key = ANY(${keys}::text[])`)
    .execute();
  const ids = rows.map((r) => r.id);
  const files = await db
    .selectFrom("import_files")
    .selectAll()
    .where(sql<boolean>`item_id = ANY(${ids}::uuid[])`)
    .orderBy("position")
    .execute();
  const byItem = new Map<string, ImportFileRow[]>();
  for (const f of files) {
    const list = byItem.get(f.item_id);
    if (list) list.push(f);
    else byItem.set(f.item_id, [f]);
  }
  return rows.map((item) => ({ item, files: byItem.get(item.id) ?? [] }));
}

/** The import_items and import_files tables (migration 1080); only this file touches them. */
export function createImportRepository(db: Db) {
  return {
    /**
     * Records the items of an export not recorded yet (an item already recorded keeps its
     * state: a second import of the same export adds nothing) and answers every item of the
     * export's keys with its files.
     */
    async recordItems(
      userId: string,
      accountId: string,
      items: NewImportItem[],
      now: Date,
    ): Promise<{ item: ImportItemRow; files: ImportFileRow[] }[]> {
      if (items.length === 0) return [];
      return inTransaction(db, async (tx) => {
        // Batches as large as a statement's 65,535 parameters allow (9 per item, 7 per file):
        // a large export is a few statements, not hundreds.
        for (let i = 0; i < items.length; i += ITEMS_PER_INSERT) {
          const batch = items.slice(i, i + ITEMS_PER_INSERT);
          const inserted = await tx
            .insertInto("import_items")
            .values(
              batch.map((it) => ({
                user_id: userId,
                account_id: accountId,
                item_key: it.item_key,
                kind: it.kind,
                taken_at: it.taken_at,
                caption: it.caption,
                status: it.status,
                destination: sql<DestinationKind>`(SELECT a.destination FROM instagram_accounts a WHERE a.id = ${accountId})`,
                created_at: now,
                updated_at: now,
              })),
            )
            .onConflict((oc) => oc.columns(["account_id", "item_key"]).doNothing())
            .returning(["id", "item_key"])
            .execute();
          const byKey = new Map(batch.map((it) => [it.item_key, it]));
          const files = inserted.flatMap((row) =>
            (byKey.get(row.item_key)?.files ?? []).map((f, position) => ({
              item_id: row.id,
              file_key: f.file_key,
              position,
              uri: f.uri,
              name: f.name,
              media_type: f.media_type,
              updated_at: now,
            })),
          );
          for (let k = 0; k < files.length; k += FILES_PER_INSERT) {
            await tx
              .insertInto("import_files")
              .values(files.slice(k, k + FILES_PER_INSERT))
              .onConflict((oc) => oc.columns(["item_id", "file_key"]).doNothing())
              .execute();
          }
        }
        return itemsWithFiles(
          tx,
          accountId,
          items.map((it) => it.item_key),
        );
      });
    },

    /** The account's items of these keys with their files (what `recordItems` answers). */
    itemsOf(accountId: string, keys: string[]) {
      return itemsWithFiles(db, accountId, keys);
    },

    /** Sets the status of items not completed yet (known, over the limit, or pending again). */
    async setStatuses(ids: string[], status: ImportItemStatus, now: Date) {
      if (ids.length === 0) return;
      await db
        .updateTable("import_items")
        .set({ status, updated_at: now })
        .where(sql<boolean>`id = ANY(${ids}::uuid[])`)
        .where("status", "<>", "completed")
        .where("status", "<>", status)
        .execute();
    },

    /** Items of the account recorded by earlier imports (for matching by time and caption). */
    importedTimes(accountId: string, from: Date, to: Date) {
      return db
        .selectFrom("import_items")
        .select(["id", "item_key", "taken_at", "caption", "status"])
        .where("account_id", "=", accountId)
        .where("taken_at", ">=", from)
        .where("taken_at", "<=", to)
        .execute();
    },

    /** The times of the user's imported items that count against the post limit, newest first. */
    async countedImportTimes(userId: string, limit: number): Promise<{ id: string; at: Date }[]> {
      const rows = await db
        .selectFrom("import_items")
        .select(["id", "taken_at"])
        .where("user_id", "=", userId)
        .where("status", "in", ["pending", "completed", "over_limit"])
        .orderBy("taken_at", "desc")
        .limit(limit)
        .execute();
      return rows.map((r) => ({ id: r.id, at: new Date(r.taken_at) }));
    },

    findItem(userId: string, itemId: string) {
      return db
        .selectFrom("import_items")
        .selectAll()
        .where("user_id", "=", userId)
        .where("id", "=", itemId)
        .executeTakeFirst();
    },

    itemFiles(itemId: string) {
      return db
        .selectFrom("import_files")
        .selectAll()
        .where("item_id", "=", itemId)
        .orderBy("position")
        .execute();
    },

    /** Saves what one file became (a session before its first byte, then its Drive id). */
    async saveFile(itemId: string, fileKey: string, fields: Partial<ImportFileRow>, now: Date) {
      await db
        .updateTable("import_files")
        .set({ ...fields, updated_at: now })
        .where("item_id", "=", itemId)
        .where("file_key", "=", fileKey)
        .execute();
    },

    /** Claims the item's sidecar write: true for the one request that records it. */
    async completeItem(itemId: string, sidecarFileId: string, now: Date): Promise<boolean> {
      const r = await db
        .updateTable("import_items")
        .set({
          status: "completed",
          sidecar_file_id: sidecarFileId,
          completed_at: now,
          updated_at: now,
        })
        .where("id", "=", itemId)
        .where("status", "<>", "completed")
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },

    /**
     * Takes the file for one upload request until `until` (none while another request holds
     * it, nor once it is in the destination's account `owner`); answers the file's row, or
     * undefined when it is held or done.
     */
    async claimFile(itemId: string, fileKey: string, now: Date, until: Date, owner: string) {
      // `started_before`: when a request before this one began the file (read under the row's
      // lock, before this claim sets started_at). A file id recorded under another owner is not
      // in this account (`recordedIn`, import.writer.ts): the file is claimed to be written again.
      const { rows } = await sql<ImportFileRow & { started_before: Date | null }>`
        UPDATE import_files f
           SET lease_until = ${until}, started_at = coalesce(f.started_at, ${now})
          FROM (SELECT item_id, file_key, started_at FROM import_files
                 WHERE item_id = ${itemId} AND file_key = ${fileKey} FOR UPDATE) old
         WHERE f.item_id = old.item_id AND f.file_key = old.file_key
           AND (f.drive_file_id IS NULL OR f.owner NOT IN (${owner}, ''))
           AND (f.lease_until IS NULL OR f.lease_until < ${now})
        RETURNING f.*, old.started_at AS started_before`.execute(db);
      return rows[0];
    },

    async renewFile(itemId: string, fileKey: string, until: Date) {
      await db
        .updateTable("import_files")
        .set({ lease_until: until })
        .where("item_id", "=", itemId)
        .where("file_key", "=", fileKey)
        .execute();
    },

    async releaseFile(itemId: string, fileKey: string) {
      await db
        .updateTable("import_files")
        .set({ lease_until: null })
        .where("item_id", "=", itemId)
        .where("file_key", "=", fileKey)
        .execute();
    },
  };
}

export type ImportRepository = ReturnType<typeof createImportRepository>;
