import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { underLimitLocks } from "../db/limits.ts";
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

    /**
     * Counts this e-mail's and this address's failed sign-ins since `since` and, below both
     * limits, records this attempt as a failure before its password is checked (the caller
     * removes it when the password is right). Counting and recording happen under the e-mail's
     * and the address's locks, so a parallel burst checks at most the limit's passwords.
     */
    reserveLoginAttempt(
      key: { email: string; ip: string },
      limits: { email: number; ip: number },
      since: Date,
      now: Date,
    ): Promise<{ id: string } | { blockedSince: Date }> {
      const { email, ip } = key;
      return underLimitLocks(db, [`login:email:${email}`, `login:ip:${ip}`], async (trx) => {
        const f = await trx
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
        const oldest =
          Number(f.by_email) >= limits.email
            ? f.oldest_email
            : Number(f.by_ip) >= limits.ip
              ? f.oldest_ip
              : null;
        if (oldest) return { blockedSince: new Date(oldest) };
        const row = await trx
          .insertInto("login_failures")
          .values({ email, ip, created_at: now })
          .returning("id")
          .executeTakeFirstOrThrow();
        return { id: String(row.id) };
      });
    },

    /** Takes back a reserved attempt whose password was right. */
    async releaseLoginAttempt(id: string) {
      await db.deleteFrom("login_failures").where("id", "=", id).execute();
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
