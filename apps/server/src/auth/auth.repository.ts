import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { NewUser, SessionRow, UserRow, UserUpdate } from "../db/schema.ts";

export function createAuthRepository(db: Db) {
  return {
    findUserByEmail(email: string): Promise<UserRow | undefined> {
      return db
        .selectFrom("users")
        .selectAll()
        .where(sql<string>`lower(email)`, "=", email.toLowerCase())
        .executeTakeFirst();
    },

    findUserById(id: string): Promise<UserRow | undefined> {
      return db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
    },

    /** Inserts the user; undefined when the e-mail is taken. */
    async insertUser(user: NewUser): Promise<UserRow | undefined> {
      return db
        .insertInto("users")
        .values(user)
        .onConflict((oc) => oc.expression(sql`lower(email)`).doNothing())
        .returningAll()
        .executeTakeFirst();
    },

    updateUser(id: string, update: UserUpdate): Promise<UserRow | undefined> {
      return db
        .updateTable("users")
        .set({ ...update, updated_at: sql`now()` })
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
    },

    insertSession(s: {
      user_id: string;
      expires_at: Date;
      user_agent: string | null;
      ip: string | null;
    }): Promise<SessionRow> {
      return db
        .insertInto("sessions")
        .values({ ...s, revoked_at: null })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /** The session and its user, when the session is live. */
    findLiveSession(sessionId: string, now: Date) {
      return db
        .selectFrom("sessions")
        .innerJoin("users", "users.id", "sessions.user_id")
        .selectAll("users")
        .select(["sessions.id as session_id", "sessions.expires_at as session_expires_at"])
        .where("sessions.id", "=", sessionId)
        .where("sessions.revoked_at", "is", null)
        .where("sessions.expires_at", ">", now)
        .executeTakeFirst();
    },

    extendSession(sessionId: string, expiresAt: Date) {
      return db
        .updateTable("sessions")
        .set({ expires_at: expiresAt })
        .where("id", "=", sessionId)
        .execute();
    },

    revokeSession(sessionId: string, now: Date) {
      return db
        .updateTable("sessions")
        .set({ revoked_at: now })
        .where("id", "=", sessionId)
        .where("revoked_at", "is", null)
        .execute();
    },

    revokeUserSessions(userId: string, now: Date) {
      return db
        .updateTable("sessions")
        .set({ revoked_at: now })
        .where("user_id", "=", userId)
        .where("revoked_at", "is", null)
        .execute();
    },

    async recordLoginFailure(email: string, ip: string, now: Date) {
      await db.insertInto("login_failures").values({ email, ip, created_at: now }).execute();
    },

    /** Failures since `since` for this e-mail and for this address, with the oldest of each. */
    async countLoginFailures(email: string, ip: string, since: Date) {
      const row = await db
        .selectFrom("login_failures")
        .select([
          sql<number>`count(*) FILTER (WHERE email = ${email})`.as("by_email"),
          sql<number>`count(*) FILTER (WHERE ip = ${ip})`.as("by_ip"),
          sql<Date | null>`min(created_at) FILTER (WHERE email = ${email})`.as("oldest_email"),
          sql<Date | null>`min(created_at) FILTER (WHERE ip = ${ip})`.as("oldest_ip"),
        ])
        .where("created_at", ">", since)
        .where((eb) => eb.or([eb("email", "=", email), eb("ip", "=", ip)]))
        .executeTakeFirstOrThrow();
      return row;
    },

    async clearLoginFailures(email: string, before: Date) {
      await db
        .deleteFrom("login_failures")
        .where((eb) => eb.or([eb("email", "=", email), eb("created_at", "<", before)]))
        .execute();
    },
  };
}

export type AuthRepository = ReturnType<typeof createAuthRepository>;
