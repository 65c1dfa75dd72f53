import { type Insertable, sql } from "kysely";
import { createPlansRepository } from "../auth/index.ts";
import type { Db } from "../db/database.ts";
import { inTransaction } from "../db/transaction.ts";
import type { SubscriptionsTable } from "./tables.ts";

export type SubscriptionUpsert = Omit<Insertable<SubscriptionsTable>, "updated_at">;

/** Statuses in which a subscription still grants its plan. */
export const LIVE_STATUSES = ["active", "trialing", "past_due"] as const;

function repository(db: Db) {
  const plans = createPlansRepository(db);
  return {
    /** The plan holder's name, address and tier. */
    user: plans.holder,

    /**
     * Serialises billing changes of one user until the transaction ends; answers the user's
     * tier before them, or undefined when the user does not exist.
     */
    lockUser: plans.lockTier,

    /** Notes why Keepsake cancelled the subscription (kept by later upserts). */
    async setCancelReason(subscriptionId: string, reason: string, now: Date) {
      await db
        .updateTable("subscriptions")
        .set({ cancel_reason: reason, updated_at: now })
        .where("id", "=", subscriptionId)
        .execute();
    },

    async customerOf(userId: string): Promise<string | undefined> {
      const row = await db
        .selectFrom("stripe_customers")
        .select("customer_id")
        .where("user_id", "=", userId)
        .executeTakeFirst();
      return row?.customer_id;
    },

    async userOfCustomer(customerId: string): Promise<string | undefined> {
      const row = await db
        .selectFrom("stripe_customers")
        .select("user_id")
        .where("customer_id", "=", customerId)
        .executeTakeFirst();
      return row?.user_id;
    },

    /** Stores the user's customer unless one is stored already; returns the stored one. */
    async saveCustomer(userId: string, customerId: string): Promise<string> {
      await db
        .insertInto("stripe_customers")
        .values({ user_id: userId, customer_id: customerId })
        .onConflict((oc) => oc.doNothing())
        .execute();
      return (await this.customerOf(userId)) ?? customerId;
    },

    async subscriptionsOf(userId: string) {
      return db
        .selectFrom("subscriptions")
        .selectAll()
        .where("user_id", "=", userId)
        .orderBy("stripe_created_at", "desc")
        .execute();
    },

    async upsertSubscription(row: SubscriptionUpsert, now: Date) {
      const { id: _id, ...changes } = row;
      await db
        .insertInto("subscriptions")
        .values({ ...row, updated_at: now })
        .onConflict((oc) => oc.column("id").doUpdateSet({ ...changes, updated_at: now }))
        .execute();
    },

    setTier: plans.setTier,

    /**
     * Claims the user's billing for `leaseSeconds` unless another change holds it (an expired
     * claim is taken over); "no_user" when the user does not exist.
     */
    async tryClaim(
      userId: string,
      token: string,
      leaseSeconds: number,
    ): Promise<"claimed" | "busy" | "no_user"> {
      try {
        const row = await db
          .insertInto("billing_claims")
          .values({
            user_id: userId,
            token,
            expires_at: sql<Date>`clock_timestamp() + make_interval(secs => ${leaseSeconds})`,
          })
          .onConflict((oc) =>
            oc
              .column("user_id")
              .doUpdateSet((eb) => ({
                token: eb.ref("excluded.token"),
                expires_at: eb.ref("excluded.expires_at"),
              }))
              .where("billing_claims.expires_at", "<", sql<Date>`clock_timestamp()`),
          )
          .returning("token")
          .executeTakeFirst();
        return row ? "claimed" : "busy";
      } catch (err) {
        // 23503: the user's row is gone (or never was).
        if ((err as { code?: string }).code === "23503") return "no_user";
        throw err;
      }
    },

    /** Whether `token` still holds the user's claim (it may have lapsed, never been taken over). */
    async holdsClaim(userId: string, token: string): Promise<boolean> {
      const row = await db
        .selectFrom("billing_claims")
        .select("token")
        .where("user_id", "=", userId)
        .where("token", "=", token)
        .executeTakeFirst();
      return row !== undefined;
    },

    async releaseClaim(userId: string, token: string): Promise<void> {
      await db
        .deleteFrom("billing_claims")
        .where("user_id", "=", userId)
        .where("token", "=", token)
        .execute();
    },

    async eventProcessed(eventId: string): Promise<boolean> {
      const row = await db
        .selectFrom("stripe_events")
        .select("id")
        .where("id", "=", eventId)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Records the event; false when another delivery recorded it first. */
    async recordEvent(eventId: string, type: string, now: Date): Promise<boolean> {
      const r = await db
        .insertInto("stripe_events")
        .values({ id: eventId, type, processed_at: now })
        .onConflict((oc) => oc.doNothing())
        .returning("id")
        .executeTakeFirst();
      return r !== undefined;
    },
  };
}

export function createBillingRepository(db: Db) {
  return {
    ...repository(db),
    /** Runs `fn` in one transaction with a repository bound to it. */
    transaction<T>(fn: (repo: ReturnType<typeof repository>) => Promise<T>): Promise<T> {
      return inTransaction(db, (trx) => fn(repository(trx)));
    },
  };
}

export type BillingRepository = ReturnType<typeof createBillingRepository>;
