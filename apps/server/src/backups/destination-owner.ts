import type { DestinationKind } from "@keepsake/contracts";
import type { Db } from "../db/database.ts";

/**
 * What a backup copied again starts from: pending, never attempted, with no file recorded on
 * the backup itself (its ledger rows stay, each under the destination and account it was
 * written to: `backup_files.destination` and `.owner`).
 */
export const pendingAgain = (now: Date) => ({
  status: "pending" as const,
  owner: "",
  attempts: 0,
  error_message: null,
  lease_token: null,
  lease_expires_at: null,
  started_at: null,
  completed_at: null,
  google_drive_file_id: null,
  google_drive_url: null,
  updated_at: now,
});

/**
 * The account's posts an export import wrote: their backups stay where the import put them
 * (their media is not Instagram's to fetch again).
 */
export const importedPosts = (trx: Db, where: { user_id: string } | { account_id: string }) => {
  const q = trx.selectFrom("posts").select("id").where("source", "=", "export");
  return "user_id" in where
    ? q.where("user_id", "=", where.user_id)
    : q.where("account_id", "=", where.account_id);
};

/**
 * A destination was connected, in the transaction that stores it: `account` is the account of
 * it connected now (the Google sub, the Dropbox or Microsoft account, the S3 endpoint, bucket
 * and prefix), `previous` the one connected before (null: none was).
 *
 * What was backed up into another account of it is not in this one: those backups become
 * pending, so the history is copied into this account once (the sync the connection starts
 * queues them); what is in the other account stays there, and its records stay too, so
 * connecting that account again finds what was written there and uploads nothing twice. A
 * backup running when the account changed is taken back too (its lease ends; it writes no
 * outcome). Records written before accounts were recorded (owner '') are this account's, as
 * they always were taken to be. Answers how many backups are copied again.
 */
export async function copyIntoChosenAccount(
  trx: Db,
  change: { userId: string; kind: DestinationKind; account: string; previous: string | null },
  now: Date,
): Promise<number> {
  const { userId, kind, account } = change;
  await trx
    .updateTable("backups")
    .set({ owner: account })
    .where("user_id", "=", userId)
    .where("destination", "=", kind)
    .where("owner", "=", "")
    .where("status", "in", ["completed", "unavailable"])
    .execute();
  await trx
    .updateTable("backup_files as f")
    .set({ owner: account })
    .where("f.destination", "=", kind)
    .where("f.owner", "=", "")
    .where(
      "f.backup_id",
      "in",
      trx.selectFrom("backups").select("id").where("user_id", "=", userId),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("backup_files as g")
            .select("g.backup_id")
            .whereRef("g.backup_id", "=", "f.backup_id")
            .whereRef("g.destination", "=", "f.destination")
            .whereRef("g.item_key", "=", "f.item_key")
            .where("g.owner", "=", account),
        ),
      ),
    )
    .execute();
  const changed = change.previous !== account;
  const reset = await trx
    .updateTable("backups")
    .set(pendingAgain(now))
    .where("user_id", "=", userId)
    .where("destination", "=", kind)
    .where((eb) =>
      eb.or([
        eb.and([
          eb("status", "in", ["completed", "unavailable"]),
          eb("owner", "<>", account),
          eb("owner", "<>", ""),
        ]),
        ...(changed ? [eb("status", "=", "processing")] : []),
      ]),
    )
    .where("post_id", "not in", importedPosts(trx, { user_id: userId }))
    .executeTakeFirst();
  return Number(reset.numUpdatedRows);
}
