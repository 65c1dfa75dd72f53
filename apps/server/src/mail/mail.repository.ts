import { type Insertable, sql } from "kysely";
import type { Db } from "../db/database.ts";
import { underLimitLocks } from "../db/limits.ts";
import type { MailOutboxTable, MailStatus } from "./tables.ts";

export type NewOutboxMessage = Required<
  Pick<
    Insertable<MailOutboxTable>,
    | "idempotency_key"
    | "category"
    | "template"
    | "recipient"
    | "user_id"
    | "to_address"
    | "subject"
    | "message_id"
  >
> & {
  /** The template data, sealed (a string); the repository stores it as it is given. */
  data: string;
  now: Date;
};

/** An hourly cap: at most `max` messages of `group` recorded since `since`. */
export interface MailCap {
  group: string;
  max: number;
  since: Date;
}

/** Inserts a message once per idempotency key (undefined: its row vanished in between). */
async function insertOnce(
  db: Db,
  m: NewOutboxMessage,
  capGroup: string | null = null,
): Promise<{ id: string; created: boolean } | undefined> {
  const inserted = await db
    .insertInto("mail_outbox")
    .values({
      idempotency_key: m.idempotency_key,
      category: m.category,
      template: m.template,
      recipient: m.recipient,
      user_id: m.user_id,
      to_address: m.to_address,
      subject: m.subject,
      data: JSON.stringify(m.data),
      message_id: m.message_id,
      cap_group: capGroup,
      next_attempt_at: m.now,
      created_at: m.now,
      updated_at: m.now,
    })
    .onConflict((oc) => oc.column("idempotency_key").doNothing())
    .returning("id")
    .executeTakeFirst();
  if (inserted) return { id: inserted.id, created: true };
  const existing = await db
    .selectFrom("mail_outbox")
    .select("id")
    .where("idempotency_key", "=", m.idempotency_key)
    .executeTakeFirst();
  return existing ? { id: existing.id, created: false } : undefined;
}

/** The only SQL of mail_outbox and mail_preferences. */
export function createMailRepository(db: Db) {
  return {
    /**
     * Records a message once per idempotency key. Answers the row's id and whether this call
     * created it (false: the event was already recorded, nothing new to send).
     */
    async insertMessage(m: NewOutboxMessage): Promise<{ id: string; created: boolean }> {
      const r = await insertOnce(db, m);
      if (!r) throw new Error("unreachable: a message without a cap is always recorded");
      return r;
    },

    /**
     * As `insertMessage`, within an hourly cap: counted and decided under the group's advisory
     * lock, so a parallel burst records at most `cap.max`. An event already recorded answers its
     * row (not counted again); over the cap nothing is recorded and the answer is the oldest
     * counted message's time (when the cap frees up).
     */
    insertCapped(
      m: NewOutboxMessage,
      cap: MailCap,
    ): Promise<{ id: string; created: boolean } | { cappedSince: Date }> {
      return underLimitLocks(db, [`mail-cap:${cap.group}`], async (trx) => {
        const existing = await trx
          .selectFrom("mail_outbox")
          .select("id")
          .where("idempotency_key", "=", m.idempotency_key)
          .executeTakeFirst();
        if (existing) return { id: existing.id, created: false };
        const recent = await trx
          .selectFrom("mail_outbox")
          .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min("created_at").as("oldest")])
          .where("cap_group", "=", cap.group)
          .where("created_at", ">", cap.since)
          .executeTakeFirstOrThrow();
        if (Number(recent.n) >= cap.max)
          return { cappedSince: recent.oldest ? new Date(recent.oldest) : m.now };
        const r = await insertOnce(trx, m, cap.group);
        if (!r) throw new Error("unreachable: the key was checked under the lock");
        return r;
      });
    },

    get(id: string) {
      return db.selectFrom("mail_outbox").selectAll().where("id", "=", id).executeTakeFirst();
    },

    findByKey(key: string) {
      return db
        .selectFrom("mail_outbox")
        .selectAll()
        .where("idempotency_key", "=", key)
        .executeTakeFirst();
    },

    /**
     * Takes the message for one attempt: a queued one, or one whose last attempt died before the
     * SMTP DATA command (phase 'connecting', lease over). Atomic: of two workers, one wins.
     */
    claim(id: string, now: Date, leaseUntil: Date) {
      return db
        .updateTable("mail_outbox")
        .set({
          status: "sending",
          phase: "connecting",
          attempts: sql`attempts + 1`,
          lease_until: leaseUntil,
          updated_at: now,
        })
        .where("id", "=", id)
        .where((eb) =>
          eb.or([
            eb("status", "=", "queued"),
            eb.and([
              eb("status", "=", "sending"),
              eb("phase", "=", "connecting"),
              eb("lease_until", "<", now),
            ]),
          ]),
        )
        .returningAll()
        .executeTakeFirst();
    },

    /**
     * The attempt is about to hand the message over (SMTP DATA). False when the claim was lost
     * (its lease ran out and another attempt took it): then this attempt must not send.
     */
    async enterData(id: string, attempt: number, now: Date, leaseUntil: Date): Promise<boolean> {
      const r = await db
        .updateTable("mail_outbox")
        .set({ phase: "data", lease_until: leaseUntil, updated_at: now })
        .where("id", "=", id)
        .where("status", "=", "sending")
        .where("attempts", "=", attempt)
        .where("lease_until", ">=", now)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    /**
     * Settles an attempt of `attempt` number: sent (the template data, which may hold
     * single-use links, is dropped), queued again for `nextAttemptAt`, or failed.
     */
    async settle(
      id: string,
      attempt: number,
      outcome:
        | { status: "sent"; response: string; now: Date }
        | { status: "queued"; error: string; nextAttemptAt: Date; now: Date }
        | { status: "failed"; error: string; now: Date },
    ): Promise<boolean> {
      const base = { phase: null, lease_until: null, updated_at: outcome.now };
      const set =
        outcome.status === "sent"
          ? {
              ...base,
              status: "sent" as const,
              smtp_response: outcome.response.slice(0, 500),
              sent_at: outcome.now,
              data: null,
            }
          : outcome.status === "queued"
            ? {
                ...base,
                status: "queued" as const,
                last_error: outcome.error,
                next_attempt_at: outcome.nextAttemptAt,
              }
            : // A failed message is never sent: its data (single-use links) is dropped too.
              { ...base, status: "failed" as const, last_error: outcome.error, data: null };
      const r = await db
        .updateTable("mail_outbox")
        .set(set)
        .where("id", "=", id)
        .where("status", "=", "sending")
        .where("attempts", "=", attempt)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    /**
     * A message whose attempt died during the SMTP DATA exchange (phase 'data', lease over):
     * the server may have it, so it is never sent again; it is marked failed with `reason`.
     */
    async failInterrupted(id: string, now: Date, reason: string) {
      const r = await db
        .updateTable("mail_outbox")
        .set({
          status: "failed",
          phase: null,
          lease_until: null,
          last_error: reason,
          data: null,
          updated_at: now,
        })
        .where("id", "=", id)
        .where("status", "=", "sending")
        .where("phase", "=", "data")
        .where("lease_until", "<", now)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    /** Messages a sweep should look at: queued and due before `dueBefore`, or with a lapsed lease. */
    async stranded(dueBefore: Date, now: Date, limit: number) {
      return db
        .selectFrom("mail_outbox")
        .select(["id", "status", "phase"])
        .where((eb) =>
          eb.or([
            eb.and([eb("status", "=", "queued"), eb("next_attempt_at", "<", dueBefore)]),
            eb.and([eb("status", "=", "sending"), eb("lease_until", "<", now)]),
          ]),
        )
        .orderBy("next_attempt_at")
        .limit(limit)
        .execute();
    },

    /** The admin's outbox view: newest first, optionally one status. */
    list(options: { status?: MailStatus | undefined; limit: number; offset: number }) {
      let q = db
        .selectFrom("mail_outbox")
        .select([
          "id",
          "category",
          "template",
          "to_address",
          "subject",
          "status",
          "attempts",
          "last_error",
          "smtp_response",
          "created_at",
          "sent_at",
          "next_attempt_at",
        ]);
      if (options.status) q = q.where("status", "=", options.status);
      return q
        .orderBy("created_at", "desc")
        .orderBy("id")
        .limit(options.limit)
        .offset(options.offset)
        .execute();
    },

    async counts(): Promise<Record<MailStatus, number>> {
      const rows = await db
        .selectFrom("mail_outbox")
        .select(["status", (eb) => eb.fn.countAll<number>().as("n")])
        .groupBy("status")
        .execute();
      const out: Record<MailStatus, number> = { queued: 0, sending: 0, sent: 0, failed: 0 };
      for (const r of rows) out[r.status] = Number(r.n);
      return out;
    },

    async preference(recipient: string, category: string): Promise<boolean | undefined> {
      const row = await db
        .selectFrom("mail_preferences")
        .select("enabled")
        .where("recipient", "=", recipient)
        .where("category", "=", category)
        .executeTakeFirst();
      return row?.enabled;
    },

    async preferences(recipient: string): Promise<Map<string, boolean>> {
      const rows = await db
        .selectFrom("mail_preferences")
        .select(["category", "enabled"])
        .where("recipient", "=", recipient)
        .execute();
      return new Map(rows.map((r) => [r.category, r.enabled]));
    },

    /** Forgets every choice these recipients made (a deleted user). */
    async deletePreferences(recipients: string[]) {
      if (recipients.length === 0) return;
      await db.deleteFrom("mail_preferences").where("recipient", "in", recipients).execute();
    },

    async setPreference(recipient: string, category: string, enabled: boolean, now: Date) {
      await db
        .insertInto("mail_preferences")
        .values({ recipient, category, enabled, updated_at: now })
        .onConflict((oc) =>
          oc.columns(["recipient", "category"]).doUpdateSet({ enabled, updated_at: now }),
        )
        .execute();
    },
  };
}

export type MailRepository = ReturnType<typeof createMailRepository>;
