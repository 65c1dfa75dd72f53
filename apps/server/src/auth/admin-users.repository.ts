import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { UserRow } from "./tables.ts";

/** `%`, `_` and `\` match themselves in a LIKE pattern. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Users as the admin area and the CLI see them: every user, not scoped to the caller. The auth
 * area owns the users table; the admin area asks this repository (wired in context.ts).
 */
export function createAdminRepository(db: Db) {
  return {
    /** A page of users, newest first, whose e-mail or name contains `search`. */
    async listUsers(q: { search?: string | undefined; limit: number; offset: number }) {
      let query = db.selectFrom("users");
      if (q.search) {
        const pattern = `%${likeEscape(q.search)}%`;
        query = query.where((eb) =>
          eb.or([
            eb("email", "ilike", pattern),
            eb(sql<string>`coalesce(full_name, '')`, "ilike", pattern),
          ]),
        );
      }
      const [rows, total] = await Promise.all([
        query
          .selectAll()
          .orderBy("created_at", "desc")
          .orderBy("id")
          .limit(q.limit)
          .offset(q.offset)
          .execute(),
        query.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow(),
      ]);
      return { rows: rows as UserRow[], total: Number(total.n) };
    },

    findUser(id: string): Promise<UserRow | undefined> {
      return db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
    },

    /** Flips a flag in one statement, so two admins clicking at once cannot lose an update. */
    toggle(id: string, flag: "is_admin" | "is_active"): Promise<UserRow | undefined> {
      return db
        .updateTable("users")
        .set({ [flag]: sql`NOT ${sql.ref(flag)}`, updated_at: sql`now()` })
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
    },

    /** `npm run cli -- make-admin`: the user with this e-mail becomes an administrator. */
    makeAdminByEmail(email: string) {
      return db
        .updateTable("users")
        .set({ is_admin: true, updated_at: sql`now()` })
        .where(sql<string>`lower(email)`, "=", email.trim().toLowerCase())
        .returning(["email"])
        .executeTakeFirst();
    },
  };
}

export type AdminRepository = ReturnType<typeof createAdminRepository>;
