import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { underLimitLocks } from "../db/limits.ts";
import type { NewUser, SessionRow, UserRow, UserUpdate } from "./tables.ts";

export function createAuthRepository(db: Db) {
  return {
    /**
     * Deletes the user (their other rows go with it, by their foreign keys) and the sign-in
     * failures counted against their address; false when there was no such user.
     */
    async deleteUser(userId: string, address: string): Promise<boolean> {
      await db.deleteFrom("login_failures").where("email", "=", address).execute();
      await db.deleteFrom("account_mail_requests").where("email", "=", address).execute();
      const r = await db.deleteFrom("users").where("id", "=", userId).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

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
      await db.deleteFrom("login_failures").where("id", "=", Number(id)).execute();
    },

    /**
     * Records a request for an account mail (reset, verification, registration) unless this
     * e-mail or this client address already made `limits` of that kind since `since`, or (with
     * `limits.all`) everyone together did — counted and decided under those keys' locks.
     * Recorded whether or not an account has the address: the limit reveals nothing.
     */
    recordMailRequest(
      key: { kind: string; email: string; ip: string },
      limits: { email: number; ip: number; all?: number },
      since: Date,
      now: Date,
    ): Promise<{ limitedSince: Date } | null> {
      const { kind, email, ip } = key;
      const locks = [`${kind}:email:${email}`, `${kind}:ip:${ip}`];
      if (limits.all !== undefined) locks.push(`${kind}:all`);
      return underLimitLocks(db, locks, async (trx) => {
        const f = await trx
          .selectFrom("account_mail_requests")
          .select([
            sql<number>`count(*) FILTER (WHERE email = ${email})`.as("by_email"),
            sql<number>`count(*) FILTER (WHERE ip = ${ip})`.as("by_ip"),
            sql<Date | null>`min(created_at) FILTER (WHERE email = ${email})`.as("oldest_email"),
            sql<Date | null>`min(created_at) FILTER (WHERE ip = ${ip})`.as("oldest_ip"),
          ])
          .where("kind", "=", kind)
          .where("created_at", ">", since)
          .where((eb) => eb.or([eb("email", "=", email), eb("ip", "=", ip)]))
          .executeTakeFirstOrThrow();
        let oldest =
          Number(f.by_email) >= limits.email
            ? f.oldest_email
            : Number(f.by_ip) >= limits.ip
              ? f.oldest_ip
              : null;
        if (!oldest && limits.all !== undefined) {
          const all = await trx
            .selectFrom("account_mail_requests")
            .select((eb) => [
              eb.fn.countAll<number>().as("n"),
              eb.fn.min("created_at").as("oldest"),
            ])
            .where("kind", "=", kind)
            .where("created_at", ">", since)
            .executeTakeFirstOrThrow();
          if (Number(all.n) >= limits.all) oldest = all.oldest as Date | null;
        }
        if (oldest) return { limitedSince: new Date(oldest) };
        await trx
          .insertInto("account_mail_requests")
          .values({ kind, email, ip, created_at: now })
          .execute();
        return null;
      });
    },

    insertAccountToken(t: {
      user_id: string;
      purpose: "password_reset" | "verify_email";
      token_hash: string;
      email: string;
      created_at: Date;
      expires_at: Date;
    }) {
      return db
        .insertInto("account_tokens")
        .values({ ...t, used_at: null })
        .returning("id")
        .executeTakeFirstOrThrow();
    },

    /**
     * Uses a token once: marks it used and answers it, when it is of `purpose`, unused and not
     * expired at `now`. Of two parallel uses, one gets it.
     */
    spendAccountToken(tokenHash: string, purpose: "password_reset" | "verify_email", now: Date) {
      return db
        .updateTable("account_tokens")
        .set({ used_at: now })
        .where("token_hash", "=", tokenHash)
        .where("purpose", "=", purpose)
        .where("used_at", "is", null)
        .where("expires_at", ">", now)
        .returning(["id", "user_id", "email"])
        .executeTakeFirst();
    },

    /**
     * Ends every unused token of the user, of every purpose: a password change or reset and an
     * e-mail change void reset links and e-mail-change links alike (issue 35).
     */
    async voidAccountTokens(userId: string, now: Date) {
      await db
        .updateTable("account_tokens")
        .set({ used_at: now })
        .where("user_id", "=", userId)
        .where("used_at", "is", null)
        .execute();
    },

    /** The address of the user's latest unused e-mail change (a verify token for another address). */
    async pendingEmail(userId: string, currentEmail: string, now: Date): Promise<string | null> {
      const row = await db
        .selectFrom("account_tokens")
        .select("email")
        .where("user_id", "=", userId)
        .where("purpose", "=", "verify_email")
        .where("used_at", "is", null)
        .where("expires_at", ">", now)
        .where(sql<string>`lower(email)`, "<>", currentEmail.toLowerCase())
        .orderBy("created_at", "desc")
        .executeTakeFirst();
      return row?.email ?? null;
    },

    /** Ends every live session of the user except `keep`. */
    revokeOtherSessions(userId: string, keep: string, now: Date) {
      return db
        .updateTable("sessions")
        .set({ revoked_at: now })
        .where("user_id", "=", userId)
        .where("id", "<>", keep)
        .where("revoked_at", "is", null)
        .execute();
    },

    /** Moves the user to a new address (verified by the link); undefined when it is taken. */
    async changeEmail(userId: string, email: string, now: Date): Promise<UserRow | undefined> {
      try {
        return await db
          .updateTable("users")
          .set({ email, email_verified_at: now, updated_at: now })
          .where("id", "=", userId)
          .returningAll()
          .executeTakeFirst();
      } catch (err) {
        if ((err as { code?: string }).code === "23505") return undefined;
        throw err;
      }
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
