import { type Kysely, sql } from "kysely";
import { createPlansRepository } from "../auth/index.ts";
import type { Db } from "../db/database.ts";
import type { Database } from "../db/schema.ts";
import { inTransaction } from "../db/transaction.ts";
import { type AccountChosen, createDestinationStates } from "./destination-state.ts";
import type {
  GoogleConnectionRow,
  GoogleConnectionUpdate,
  InstagramAccountRow,
  InstagramAccountUpdate,
  NewGoogleConnection,
  NewInstagramAccount,
  OAuthStateRow,
} from "./tables.ts";

/** The row for `c`, inserted or replaced (connecting Google again), active. */
function upsertGoogle(db: Kysely<Database>, c: NewGoogleConnection, now: Date) {
  return db
    .insertInto("google_connections")
    .values(c)
    .onConflict((oc) =>
      oc.column("user_id").doUpdateSet({
        google_sub: c.google_sub,
        google_email: c.google_email,
        scopes: c.scopes,
        refresh_token_encrypted: c.refresh_token_encrypted,
        access_token_encrypted: c.access_token_encrypted ?? null,
        access_token_expires_at: c.access_token_expires_at ?? null,
        status: "active",
        status_reason: null,
        last_validated_at: c.last_validated_at ?? null,
        updated_at: now,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

function repository(db: Kysely<Database>) {
  const plans = createPlansRepository(db);
  return {
    // --- the owner's plan (auth's users table) --------------------------------------------
    userTier: plans.tierOf,

    // --- where each account's backups go (google_connections, destination_connections) ----
    ...createDestinationStates(db),

    /** Serialises connection changes of one user (held until the transaction ends). */
    lockUser: plans.lockTier,

    // --- oauth_states ----------------------------------------------------------------------
    insertState(s: {
      user_id: string;
      provider: OAuthStateRow["provider"];
      account_type: string | null;
      purpose?: string | null;
      purpose_username?: string | null;
      created_at: Date;
      expires_at: Date;
    }): Promise<OAuthStateRow> {
      return db.insertInto("oauth_states").values(s).returningAll().executeTakeFirstOrThrow();
    },

    findState(id: string): Promise<OAuthStateRow | undefined> {
      return db.selectFrom("oauth_states").selectAll().where("id", "=", id).executeTakeFirst();
    },

    /** Marks the state used; undefined when another request used it first. */
    useState(id: string, now: Date): Promise<OAuthStateRow | undefined> {
      return db
        .updateTable("oauth_states")
        .set({ used_at: now })
        .where("id", "=", id)
        .where("used_at", "is", null)
        .returningAll()
        .executeTakeFirst();
    },

    async deleteStatesBefore(before: Date) {
      await db.deleteFrom("oauth_states").where("expires_at", "<", before).execute();
    },

    // --- instagram_accounts ----------------------------------------------------------------
    listInstagramAccounts(userId: string): Promise<InstagramAccountRow[]> {
      return db
        .selectFrom("instagram_accounts")
        .selectAll()
        .where("user_id", "=", userId)
        .orderBy("connected_at")
        .orderBy("id")
        .execute();
    },

    findInstagramAccount(userId: string, id: string): Promise<InstagramAccountRow | undefined> {
      return db
        .selectFrom("instagram_accounts")
        .selectAll()
        .where("user_id", "=", userId)
        .where("id", "=", id)
        .executeTakeFirst();
    },

    findInstagramAccountById(id: string): Promise<InstagramAccountRow | undefined> {
      return db
        .selectFrom("instagram_accounts")
        .selectAll()
        .where("id", "=", id)
        .executeTakeFirst();
    },

    findByInstagramUserId(instagramUserId: string): Promise<InstagramAccountRow | undefined> {
      return db
        .selectFrom("instagram_accounts")
        .selectAll()
        .where("instagram_user_id", "=", instagramUserId)
        .executeTakeFirst();
    },

    /** Inserts the account; undefined when the Instagram account is already taken. */
    insertInstagramAccount(a: NewInstagramAccount): Promise<InstagramAccountRow | undefined> {
      return db
        .insertInto("instagram_accounts")
        .values(a)
        .onConflict((oc) => oc.column("instagram_user_id").doNothing())
        .returningAll()
        .executeTakeFirst();
    },

    updateInstagramAccount(
      id: string,
      update: InstagramAccountUpdate,
      now: Date,
    ): Promise<InstagramAccountRow | undefined> {
      return db
        .updateTable("instagram_accounts")
        .set({ ...update, updated_at: now })
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
    },

    /** Deletes one of the user's accounts (its posts and backup records cascade). */
    async deleteInstagramAccount(userId: string, id: string): Promise<number> {
      const r = await db
        .deleteFrom("instagram_accounts")
        .where("user_id", "=", userId)
        .where("id", "=", id)
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },

    /** Active Instagram-Login accounts whose token may be refreshed now and ends before `until`. */
    listRefreshable(p: { issuedBefore: Date; expiresBefore: Date }) {
      return db
        .selectFrom("instagram_accounts")
        .selectAll()
        .where("status", "=", "active")
        .where("connected_via", "=", "instagram")
        .where("token_issued_at", "<=", p.issuedBefore)
        .where("token_expires_at", "<=", p.expiresBefore)
        .orderBy("token_expires_at")
        .execute();
    },

    /** Active accounts whose token ends in (now, until] (the expiring-token alert). */
    expiringTokens(now: Date, until: Date) {
      return db
        .selectFrom("instagram_accounts")
        .select([
          "id",
          "user_id",
          "username",
          "connected_via",
          "token_issued_at",
          "token_expires_at",
        ])
        .where("status", "=", "active")
        .where("token_expires_at", ">", now)
        .where("token_expires_at", "<=", until)
        .orderBy("token_expires_at")
        .execute();
    },

    /** Marks active accounts whose token has ended as needing reconnection. */
    async markExpired(now: Date, reason: string): Promise<InstagramAccountRow[]> {
      return db
        .updateTable("instagram_accounts")
        .set({ status: "needs_reconnection", status_reason: reason, updated_at: now })
        .where("status", "=", "active")
        .where("token_expires_at", "<=", now)
        .returningAll()
        .execute();
    },

    /** The soonest Instagram token expiry of the user (the profile's `token_expires_at`). */
    async earliestTokenExpiry(userId: string): Promise<Date | null> {
      const row = await db
        .selectFrom("instagram_accounts")
        .select(sql<Date | null>`min(token_expires_at)`.as("min"))
        .where("user_id", "=", userId)
        .executeTakeFirst();
      return row?.min ? new Date(row.min) : null;
    },

    // --- google_connections ----------------------------------------------------------------
    findGoogleConnection(userId: string): Promise<GoogleConnectionRow | undefined> {
      return db
        .selectFrom("google_connections")
        .selectAll()
        .where("user_id", "=", userId)
        .executeTakeFirst();
    },

    /**
     * Connecting Google (again), in one transaction with `chosen`: told which Google account
     * is connected now and which one was.
     */
    upsertGoogleConnection(
      c: NewGoogleConnection,
      now: Date,
      chosen?: AccountChosen,
    ): Promise<GoogleConnectionRow> {
      return inTransaction(db, async (trx) => {
        const before = await trx
          .selectFrom("google_connections")
          .select("google_sub")
          .where("user_id", "=", c.user_id)
          .forUpdate()
          .executeTakeFirst();
        const row = await upsertGoogle(trx, c, now);
        await chosen?.(trx, {
          userId: c.user_id,
          kind: "google_drive",
          account: row.google_sub,
          previous: before?.google_sub ?? null,
        });
        return row;
      });
    },

    updateGoogleConnection(
      userId: string,
      update: GoogleConnectionUpdate,
      now: Date,
    ): Promise<GoogleConnectionRow | undefined> {
      return db
        .updateTable("google_connections")
        .set({ ...update, updated_at: now })
        .where("user_id", "=", userId)
        .returningAll()
        .executeTakeFirst();
    },

    // --- the accounts panel's plan limit and list ------------------------------------------
    /**
     * Fits a user's synced accounts into the plan: the first `limit` stay active (the account
     * the user chose to keep first, then those already active, oldest first), the rest are
     * paused. Connected accounts are never removed. Returns how many are paused.
     */
    async applyAccountLimit(userId: string, limit: number, keep?: string): Promise<number> {
      await sql`
        UPDATE instagram_accounts a SET paused_by_plan = r.rn > ${limit}
        FROM (
          SELECT id, row_number() OVER (
            ORDER BY (id = ${keep ?? null}::uuid) IS TRUE DESC, paused_by_plan, connected_at, id
          ) AS rn
          FROM instagram_accounts WHERE user_id = ${userId}
        ) r
        WHERE a.id = r.id AND a.paused_by_plan IS DISTINCT FROM (r.rn > ${limit})`.execute(db);
      const row = await db
        .selectFrom("instagram_accounts")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("user_id", "=", userId)
        .where("paused_by_plan", "=", true)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    userAccounts(userId: string) {
      return db
        .selectFrom("instagram_accounts")
        .select([
          "id",
          "username",
          "status",
          "status_reason",
          "media_count",
          "paused_by_plan",
          "destination",
        ])
        .where("user_id", "=", userId)
        .orderBy("connected_at")
        .execute();
    },

    /** Points the user's account at another destination; false when it is not theirs. */
    async setAccountDestination(
      userId: string,
      accountId: string,
      destination: InstagramAccountRow["destination"],
      now: Date,
    ): Promise<boolean> {
      const r = await db
        .updateTable("instagram_accounts")
        .set({ destination, updated_at: now })
        .where("id", "=", accountId)
        .where("user_id", "=", userId)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },

    async deleteGoogleConnection(userId: string): Promise<number> {
      const r = await db
        .deleteFrom("google_connections")
        .where("user_id", "=", userId)
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}

export type ConnectionsRepository = ReturnType<typeof repository> & {
  /** Runs `fn` in one transaction with a repository bound to it. */
  transaction<T>(fn: (repo: ReturnType<typeof repository>) => Promise<T>): Promise<T>;
};

export function createConnectionsRepository(db: Db): ConnectionsRepository {
  return {
    ...repository(db),
    transaction: (fn) => inTransaction(db, (trx) => fn(repository(trx))),
  };
}
