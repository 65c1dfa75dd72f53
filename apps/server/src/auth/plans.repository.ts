import type { SubscriptionTier } from "@keepsake/contracts";
import type { Db } from "../db/database.ts";

/**
 * The plan column of `users` (auth owns the table) for the areas that read or change a user's
 * plan: billing sets it, connections and api-keys read it. Each takes the caller's executor, so
 * a plan change and the caller's own rows commit together, and `lockTier` serialises one user's
 * plan and connection changes until the caller's transaction ends.
 */
export function createPlansRepository(db: Db) {
  return {
    async tierOf(userId: string): Promise<SubscriptionTier | undefined> {
      const row = await db
        .selectFrom("users")
        .select("subscription_tier")
        .where("id", "=", userId)
        .executeTakeFirst();
      return row?.subscription_tier;
    },

    /** The user's tier, with their row locked until the transaction ends. */
    async lockTier(userId: string): Promise<SubscriptionTier | undefined> {
      const row = await db
        .selectFrom("users")
        .select("subscription_tier")
        .where("id", "=", userId)
        .forUpdate()
        .executeTakeFirst();
      return row?.subscription_tier;
    },

    async setTier(userId: string, tier: SubscriptionTier, now: Date): Promise<void> {
      await db
        .updateTable("users")
        .set({ subscription_tier: tier, updated_at: now })
        .where("id", "=", userId)
        .execute();
    },

    /** Who holds the plan (a Checkout names the customer by it). */
    holder(userId: string) {
      return db
        .selectFrom("users")
        .select(["id", "email", "full_name", "subscription_tier"])
        .where("id", "=", userId)
        .executeTakeFirst();
    },

    /** What an API key's owner may do: their plan and whether the account is active. */
    keyOwner(userId: string) {
      return db
        .selectFrom("users")
        .select(["subscription_tier", "is_active"])
        .where("id", "=", userId)
        .executeTakeFirst();
    },
  };
}

export type PlansRepository = ReturnType<typeof createPlansRepository>;
