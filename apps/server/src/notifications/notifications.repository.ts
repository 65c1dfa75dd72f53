import { type Insertable, sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { NotificationsTable } from "./tables.ts";

/** An entry as `notify` records it: every field given (null for none). */
export type NewNotification = Required<
  Pick<
    Insertable<NotificationsTable>,
    | "user_id"
    | "event_key"
    | "category"
    | "title"
    | "body"
    | "action_label"
    | "action_path"
    | "cause"
  >
>;

/** The notifications area's tables: notifications, notification_backup_failures, notification_marks. */
export function createNotificationsRepository(db: Db) {
  return {
    /**
     * Records an event once: the row when this call created it, undefined when the key existed
     * or an alert of the same cause is open (either unique index).
     */
    insert(n: NewNotification, now: Date) {
      return db
        .insertInto("notifications")
        .values({ ...n, created_at: now })
        .onConflict((oc) => oc.doNothing())
        .returningAll()
        .executeTakeFirst();
    },

    findByKey(key: string) {
      return db
        .selectFrom("notifications")
        .selectAll()
        .where("event_key", "=", key)
        .executeTakeFirst();
    },

    /** The open (unresolved) alert of a cause, if any. */
    findOpen(cause: string) {
      return db
        .selectFrom("notifications")
        .selectAll()
        .where("cause", "=", cause)
        .where("resolved_at", "is", null)
        .executeTakeFirst();
    },

    /** Marks the open alerts of these causes resolved (and read); answers how many. */
    async resolve(causes: string[], now: Date): Promise<number> {
      if (causes.length === 0) return 0;
      const r = await db
        .updateTable("notifications")
        .set({ resolved_at: now, read_at: sql`coalesce(read_at, ${now}::timestamptz)` })
        .where("cause", "in", causes)
        .where("resolved_at", "is", null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },

    /** The open alerts whose cause starts with `prefix` (e.g. "backup-failures:"). */
    async openAlerts(
      prefix: string,
    ): Promise<{ cause: string; user_id: string; created_at: Date }[]> {
      const rows = await db
        .selectFrom("notifications")
        .select(["cause", "user_id", "created_at"])
        .where("cause", "like", `${prefix}%`)
        .where("resolved_at", "is", null)
        .execute();
      return rows.flatMap((r) =>
        r.cause ? [{ cause: r.cause, user_id: r.user_id, created_at: new Date(r.created_at) }] : [],
      );
    },

    async recordMail(id: string, mail: { id: string | null; skipped: string | null }) {
      await db
        .updateTable("notifications")
        .set({ mail_id: mail.id, mail_skipped: mail.skipped })
        .where("id", "=", id)
        .execute();
    },

    list(userId: string, limit: number) {
      return db
        .selectFrom("notifications")
        .selectAll()
        .where("user_id", "=", userId)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(limit)
        .execute();
    },

    async unreadCount(userId: string): Promise<number> {
      const row = await db
        .selectFrom("notifications")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .where("user_id", "=", userId)
        .where("read_at", "is", null)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async markRead(userId: string, id: string, now: Date): Promise<boolean> {
      const row = await db
        .updateTable("notifications")
        .set({ read_at: sql`coalesce(read_at, ${now}::timestamptz)` })
        .where("user_id", "=", userId)
        .where("id", "=", id)
        .returning("id")
        .executeTakeFirst();
      return row !== undefined;
    },

    async markAllRead(userId: string, now: Date): Promise<number> {
      const r = await db
        .updateTable("notifications")
        .set({ read_at: now })
        .where("user_id", "=", userId)
        .where("read_at", "is", null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },

    // --- failed backups waiting for their account's daily summary ---------------------------
    async recordBackupFailure(f: {
      post_id: string;
      account_id: string;
      user_id: string;
      reason: string;
      message: string;
      failed_at: Date;
    }) {
      await db
        .insertInto("notification_backup_failures")
        .values(f)
        .onConflict((oc) =>
          oc.column("post_id").doUpdateSet({
            reason: f.reason,
            message: f.message,
            failed_at: f.failed_at,
          }),
        )
        .execute();
    },

    /** Accounts with failures recorded at or before `upTo` (oldest first). */
    accountsWithFailures(upTo: Date) {
      return db
        .selectFrom("notification_backup_failures")
        .select(["account_id", "user_id"])
        .where("failed_at", "<=", upTo)
        .groupBy(["account_id", "user_id"])
        .execute();
    },

    failuresOf(accountId: string, upTo: Date) {
      return db
        .selectFrom("notification_backup_failures")
        .selectAll()
        .where("account_id", "=", accountId)
        .where("failed_at", "<=", upTo)
        .orderBy("failed_at")
        .execute();
    },

    /** Forgets failures recorded before `before` (a summary sent then covered them). */
    async clearFailuresBefore(accountId: string, before: Date) {
      await db
        .deleteFrom("notification_backup_failures")
        .where("account_id", "=", accountId)
        .where("failed_at", "<", before)
        .execute();
    },

    /** Forgets the failures a summary named (a post that failed again since stays). */
    async clearNamedFailures(named: { post_id: string; failed_at: Date }[]) {
      for (const f of named) {
        await db
          .deleteFrom("notification_backup_failures")
          .where("post_id", "=", f.post_id)
          .where("failed_at", "<=", f.failed_at)
          .execute();
      }
    },

    /** Marks subjects as reported; answers the ones this call marked (not marked before). */
    async mark(kind: string, subjects: string[], now: Date): Promise<Set<string>> {
      if (subjects.length === 0) return new Set();
      const rows = await db
        .insertInto("notification_marks")
        .values(subjects.map((subject) => ({ kind, subject, created_at: now })))
        .onConflict((oc) => oc.columns(["kind", "subject"]).doNothing())
        .returning("subject")
        .execute();
      return new Set(rows.map((r) => r.subject));
    },

    async unmark(kind: string, subjects: string[]) {
      if (subjects.length === 0) return;
      await db
        .deleteFrom("notification_marks")
        .where("kind", "=", kind)
        .where("subject", "in", subjects)
        .execute();
    },
  };
}

export type NotificationsRepository = ReturnType<typeof createNotificationsRepository>;
