import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { underLimitLocks } from "../db/limits.ts";

export function createContactRepository(db: Db) {
  return {
    /** Forgets the messages sent from an address (their replies go with them). */
    async forgetAddress(address: string): Promise<void> {
      await db
        .deleteFrom("contact_messages")
        .where(sql<string>`lower(email)`, "=", address)
        .execute();
    },

    /**
     * Stores a message unless `ip` already sent `max` since `since`: counted and decided under
     * the address's lock, so a parallel burst stores at most `max`. Otherwise answers the
     * oldest counted message's time (for Retry-After).
     */
    insertWithin(
      m: {
        name: string;
        email: string;
        subject: string;
        message: string;
        ip: string;
        created_at: Date;
      },
      limit: { max: number; since: Date },
    ): Promise<{ id: string } | { limitedSince: Date }> {
      return underLimitLocks(db, [`contact:ip:${m.ip}`], async (trx) => {
        const recent = await trx
          .selectFrom("contact_messages")
          .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min("created_at").as("oldest")])
          .where("ip", "=", m.ip)
          .where("created_at", ">", limit.since)
          .executeTakeFirstOrThrow();
        if (Number(recent.n) >= limit.max) {
          return { limitedSince: recent.oldest ? new Date(recent.oldest) : m.created_at };
        }
        return trx
          .insertInto("contact_messages")
          .values(m)
          .returning("id")
          .executeTakeFirstOrThrow();
      });
    },

    async list(limit: number, offset: number) {
      const [rows, counts] = await Promise.all([
        db
          .selectFrom("contact_messages")
          .select(["id", "name", "email", "subject", "message", "created_at", "handled_at"])
          .orderBy("created_at", "desc")
          .orderBy("id", "desc")
          .limit(limit)
          .offset(offset)
          .execute(),
        db
          .selectFrom("contact_messages")
          .select((eb) => [
            eb.fn.countAll<number>().as("total"),
            eb.fn.count<number>("id").filterWhere("handled_at", "is", null).as("unhandled"),
          ])
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(counts.total), unhandled: Number(counts.unhandled) };
    },

    find(id: string) {
      return db
        .selectFrom("contact_messages")
        .select(["id", "name", "email", "subject", "message", "created_at", "handled_at"])
        .where("id", "=", id)
        .executeTakeFirst();
    },

    insertReply(r: { message_id: string; body: string; admin_id: string; created_at: Date }) {
      return db.insertInto("contact_replies").values(r).returning("id").executeTakeFirstOrThrow();
    },

    /** The replies of these messages, oldest first. */
    replies(messageIds: readonly string[]) {
      if (messageIds.length === 0) return Promise.resolve([]);
      return db
        .selectFrom("contact_replies")
        .select(["id", "message_id", "body", "created_at"])
        .where("message_id", "in", messageIds)
        .orderBy("created_at")
        .orderBy("id")
        .execute();
    },

    markHandled(id: string, adminId: string, at: Date) {
      return db
        .updateTable("contact_messages")
        .set({ handled_at: at, handled_by: adminId })
        .where("id", "=", id)
        .returning(["id", "name", "email", "subject", "message", "created_at", "handled_at"])
        .executeTakeFirst();
    },
  };
}

export type ContactRepository = ReturnType<typeof createContactRepository>;
