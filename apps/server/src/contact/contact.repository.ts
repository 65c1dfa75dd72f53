import type { Db } from "../db/database.ts";

export function createContactRepository(db: Db) {
  return {
    insert(m: {
      name: string;
      email: string;
      subject: string;
      message: string;
      ip: string;
      created_at: Date;
    }) {
      return db.insertInto("contact_messages").values(m).returning("id").executeTakeFirstOrThrow();
    },

    /** Messages from `ip` since `since`, and the oldest of them (for Retry-After). */
    async recentFrom(ip: string, since: Date) {
      const row = await db
        .selectFrom("contact_messages")
        .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min("created_at").as("oldest")])
        .where("ip", "=", ip)
        .where("created_at", ">", since)
        .executeTakeFirstOrThrow();
      return { count: Number(row.n), oldest: row.oldest ? new Date(row.oldest) : null };
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
