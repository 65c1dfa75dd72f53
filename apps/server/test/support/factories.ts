import { type Insertable, sql, type Updateable } from "kysely";
import type { Db } from "../../src/db/database.ts";
import type { Database } from "../../src/db/schema.ts";

/**
 * Rows a test sets up without going through the product, one group per owning area (see each
 * area's `tables.ts`). Tests and the end-to-end seeds (e2e/support/seed-ops.ts) write tables
 * only through these, so a column change is fixed here once.
 */
type New<T extends keyof Database> = Insertable<Database[T]>;
type Change<T extends keyof Database> = Updateable<Database[T]>;

export function rowFactories(db: Db) {
  return {
    /** auth/: users and failed log-ins. */
    auth: {
      async updateUser(id: string, patch: Change<"users">) {
        await db.updateTable("users").set(patch).where("id", "=", id).execute();
      },
      async updateUserByEmail(email: string, patch: Change<"users">) {
        const r = await db
          .updateTable("users")
          .set(patch)
          .where("email", "=", email)
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) !== 1) throw new Error(`no user with e-mail ${email}`);
      },
      async insertUsers(values: New<"users">[]) {
        return db.insertInto("users").values(values).returningAll().execute();
      },
      async deleteUser(id: string) {
        await db.deleteFrom("users").where("id", "=", id).execute();
      },
      async userIdByEmail(email: string): Promise<string> {
        const u = await db
          .selectFrom("users")
          .select("id")
          .where("email", "=", email)
          .executeTakeFirstOrThrow();
        return u.id;
      },
      async insertLoginFailure(values: New<"login_failures">) {
        await db.insertInto("login_failures").values(values).execute();
      },
    },

    /** connections/: Instagram accounts and Google connections. */
    connections: {
      insertInstagramAccount(values: New<"instagram_accounts">) {
        return db
          .insertInto("instagram_accounts")
          .values(values)
          .returningAll()
          .executeTakeFirstOrThrow();
      },
      /** Another account like an existing one (same owner and token), under a new identity. */
      async copyInstagramAccount(
        from: { id: string } | { username: string },
        as: { instagram_user_id: string; username: string },
      ) {
        const row = await db
          .selectFrom("instagram_accounts")
          .selectAll()
          .where("id" in from ? "id" : "username", "=", "id" in from ? from.id : from.username)
          .executeTakeFirstOrThrow();
        const { id: _id, ...rest } = row;
        return db
          .insertInto("instagram_accounts")
          .values({ ...rest, ...as })
          .returningAll()
          .executeTakeFirstOrThrow();
      },
      async updateInstagramAccount(id: string, patch: Change<"instagram_accounts">) {
        await db.updateTable("instagram_accounts").set(patch).where("id", "=", id).execute();
      },
      async deleteInstagramAccount(id: string) {
        await db.deleteFrom("instagram_accounts").where("id", "=", id).execute();
      },
      async deleteAllInstagramAccounts() {
        await db.deleteFrom("instagram_accounts").execute();
      },
      async deleteAllGoogleConnections() {
        await db.deleteFrom("google_connections").execute();
      },
    },

    /** sync/: posts, runs and each account's sync state. */
    sync: {
      insertPosts(values: New<"posts">[]) {
        return db.insertInto("posts").values(values).returningAll().execute();
      },
      insertSyncJob(values: New<"sync_jobs">) {
        return db.insertInto("sync_jobs").values(values).returningAll().executeTakeFirstOrThrow();
      },
      async updatePost(id: string, patch: Change<"posts">) {
        await db.updateTable("posts").set(patch).where("id", "=", id).execute();
      },
      async deleteSyncJobsOfAccount(accountId: string) {
        await db.deleteFrom("sync_jobs").where("account_id", "=", accountId).execute();
      },
      /** Forgets every sync run of the user's accounts. */
      async deleteSyncJobsOfUser(userId: string) {
        await db.deleteFrom("sync_jobs").where("user_id", "=", userId).execute();
      },
      async updateSyncState(accountId: string, patch: Change<"account_sync_state">) {
        await db
          .updateTable("account_sync_state")
          .set(patch)
          .where("account_id", "=", accountId)
          .execute();
      },
      async insertSyncState(values: New<"account_sync_state">) {
        await db.insertInto("account_sync_state").values(values).execute();
      },
      /** The account's sync state, inserted or, when it has one, its given columns replaced. */
      async upsertSyncState(values: New<"account_sync_state">) {
        const { account_id: _id, ...patch } = values;
        await db
          .insertInto("account_sync_state")
          .values(values)
          .onConflict((oc) => oc.column("account_id").doUpdateSet(patch))
          .execute();
      },
    },

    /** backups/: each post's backup. */
    backups: {
      insertBackups(values: New<"backups">[]) {
        return db.insertInto("backups").values(values).returningAll().execute();
      },
      /** Sets the backups picked by id, by post, or all of a user's (at least one key). */
      async updateBackups(
        where: { ids?: string[]; postId?: string; userId?: string },
        patch: Change<"backups">,
      ) {
        if (!where.ids && !where.postId && !where.userId) throw new Error("which backups?");
        return db
          .updateTable("backups")
          .set(patch)
          .$if(where.ids !== undefined, (q) => q.where("id", "in", where.ids as string[]))
          .$if(where.postId !== undefined, (q) => q.where("post_id", "=", where.postId as string))
          .$if(where.userId !== undefined, (q) => q.where("user_id", "=", where.userId as string))
          .returning(["id", "post_id"])
          .execute();
      },
      /** Completed backups for the account's posts that have none; answers their ids. */
      completeUnbackedPostsOf(accountId: string) {
        return db
          .insertInto("backups")
          .columns(["post_id", "user_id", "account_id", "status"])
          .expression((eb) =>
            eb
              .selectFrom("posts as p")
              .select((e) => ["p.id", "p.user_id", "p.account_id", e.val("completed").as("status")])
              .where("p.account_id", "=", accountId)
              .where((e) =>
                e.not(
                  e.exists(
                    e.selectFrom("backups as b").select("b.id").whereRef("b.post_id", "=", "p.id"),
                  ),
                ),
              ),
          )
          .returning("id")
          .execute();
      },
      /** Forgets `n` of the user's completed backups (as after a lost row); answers their posts. */
      forgetCompleted(userId: string, n: number) {
        return db
          .deleteFrom("backups")
          .where(
            "id",
            "in",
            db
              .selectFrom("backups")
              .select("id")
              .where("user_id", "=", userId)
              .where("status", "=", "completed")
              .orderBy("id")
              .limit(n),
          )
          .returning("post_id")
          .execute();
      },
      /** A pending backup of the post, whatever state it was in. */
      async upsertPendingBackup(values: New<"backups">) {
        await db
          .insertInto("backups")
          .values(values)
          .onConflict((oc) => oc.column("post_id").doUpdateSet({ status: "pending" }))
          .execute();
      },
      /** The post's backup, inserted or, when it has one, its status and error replaced. */
      async upsertBackup(values: New<"backups">) {
        const { status, error_message } = values;
        await db
          .insertInto("backups")
          .values(values)
          .onConflict((oc) => oc.column("post_id").doUpdateSet({ status, error_message }))
          .execute();
      },
      async deleteBackupsOfPosts(postIds: string[]) {
        if (postIds.length === 0) return;
        await db.deleteFrom("backups").where("post_id", "in", postIds).execute();
      },
      async deleteBackups(ids: string[]) {
        if (ids.length === 0) return;
        await db.deleteFrom("backups").where("id", "in", ids).execute();
      },
    },

    /** import/: each imported item of an Instagram export and its media files. */
    import: {
      async updateItem(id: string, patch: Change<"import_items">) {
        await db.updateTable("import_items").set(patch).where("id", "=", id).execute();
      },
      /** Sets every media file of the item. */
      async updateFilesOfItem(itemId: string, patch: Change<"import_files">) {
        await db.updateTable("import_files").set(patch).where("item_id", "=", itemId).execute();
      },
      /** Forgets the account's imports (their files go with the items). */
      async deleteItemsOfAccount(accountId: string) {
        await db.deleteFrom("import_items").where("account_id", "=", accountId).execute();
      },
    },

    /** comments/: when each post's comments are read next. */
    comments: {
      /** Sets every comment read of the account. */
      async updateReadsOfAccount(accountId: string, patch: Change<"comment_reads">) {
        await db
          .updateTable("comment_reads")
          .set(patch)
          .where("account_id", "=", accountId)
          .execute();
      },
    },

    /** contact/ and status/: an inbox message and a status subscriber. */
    contact: {
      async insertMessage(values: New<"contact_messages">) {
        await db.insertInto("contact_messages").values(values).execute();
      },
    },
    status: {
      async insertSubscriber(values: New<"status_subscribers">) {
        await db.insertInto("status_subscribers").values(values).execute();
      },
      /** One minute's provider call counts, replacing what was recorded for that minute. */
      async setCallStats(values: New<"provider_call_stats">) {
        const { calls, errors } = values;
        await db
          .insertInto("provider_call_stats")
          .values(values)
          .onConflict((oc) => oc.columns(["provider", "minute"]).doUpdateSet({ calls, errors }))
          .execute();
      },
      async deleteAllCallStats() {
        await db.deleteFrom("provider_call_stats").execute();
      },
      /** An incident as the status sampler records it (untold unless `*_told_at` are set). */
      async insertIncident(values: New<"status_incidents">) {
        const row = await db
          .insertInto("status_incidents")
          .values(values)
          .returning("id")
          .executeTakeFirstOrThrow();
        return row.id;
      },
      async updateIncident(id: string, values: { resolved_at?: Date }) {
        await db.updateTable("status_incidents").set(values).where("id", "=", id).execute();
      },
      /** A component's last judged status and since when (as the status page's reads keep it). */
      async setComponent(values: New<"status_components">) {
        const { status, since, checked_at } = values;
        await db
          .insertInto("status_components")
          .values(values)
          .onConflict((oc) => oc.column("component").doUpdateSet({ status, since, checked_at }))
          .execute();
      },
    },
    /** archive/: the walks over each account's list and each post's presence in them. */
    archive: {
      /** Posts as walks have seen them, and their readings (the engagement history). */
      async insertPresence(values: New<"post_presence">[]) {
        await db.insertInto("post_presence").values(values).execute();
      },
      async insertReadings(values: New<"post_metrics">[]) {
        await db.insertInto("post_metrics").values(values).execute();
      },
      /** Moves every account's last walk `days` into the past (a walk is due again). */
      async ageWalks(days: number) {
        await db
          .updateTable("archive_walks")
          .set({ last_walk_at: sql<Date>`last_walk_at - make_interval(days => ${days})` })
          .execute();
      },
      /** Moves every recorded miss (and the sighting before it) `hours` into the past. */
      async ageMisses(hours: number) {
        const back = (column: string) =>
          sql<Date>`${sql.ref(column)} - make_interval(hours => ${hours})`;
        await db
          .updateTable("post_presence")
          .set({
            first_missed_at: back("first_missed_at"),
            last_missed_at: back("last_missed_at"),
            last_seen_at: back("last_seen_at"),
          })
          .where("first_missed_at", "is not", null)
          .execute();
      },
      /** Whether walks missed the post, and whether it was judged gone; null when never seen. */
      async presenceOf(instagramId: string) {
        const row = await db
          .selectFrom("post_presence")
          .select(["first_missed_at", "gone_detected_at"])
          .where("instagram_id", "=", instagramId)
          .executeTakeFirst();
        return row
          ? { missed: row.first_missed_at !== null, gone: row.gone_detected_at !== null }
          : null;
      },
    },
  };
}

export type RowFactories = ReturnType<typeof rowFactories>;
