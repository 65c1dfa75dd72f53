import type { SubscriptionTier } from "@keepsake/contracts";
import type { Generated, Selectable } from "kysely";
import type { GeneratedTimestamp, Timestamp } from "../db/columns.ts";

/**
 * The tables the billing area owns: Stripe customers, subscriptions, the webhook events already
 * processed, and the claims that let one billing change of a user run at a time (0800, 1095).
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 * Their row types below are the only declaration besides the migrations
 * (test/schema-types.test.ts compares the two).
 */
export const ownedTables = [
  "stripe_customers",
  "subscriptions",
  "stripe_events",
  "billing_claims",
] as const satisfies readonly (keyof BillingTables)[];

export interface BillingTables {
  stripe_customers: StripeCustomersTable;
  subscriptions: SubscriptionsTable;
  stripe_events: StripeEventsTable;
  billing_claims: BillingClaimsTable;
}

export interface StripeCustomersTable {
  user_id: string;
  customer_id: string;
  created_at: GeneratedTimestamp;
}

export interface SubscriptionsTable {
  id: string;
  user_id: string;
  customer_id: string;
  price_id: string | null;
  tier: SubscriptionTier;
  status: string;
  amount_cents: Generated<number>;
  billing_interval: "month" | "year" | null;
  current_period_start: Timestamp | null;
  current_period_end: Timestamp | null;
  cancel_at_period_end: Generated<boolean>;
  stripe_created_at: Timestamp;
  /** Set when Keepsake cancelled it (migration 0994): which subscription replaced it, and why. */
  cancel_reason: Generated<string | null>;
  updated_at: GeneratedTimestamp;
}

export interface StripeEventsTable {
  id: string;
  type: string;
  processed_at: GeneratedTimestamp;
}

/** A user's billing change in progress (migration 1095): see billing/billing-claims.ts. */
export interface BillingClaimsTable {
  user_id: string;
  token: string;
  expires_at: Timestamp;
}

export type SubscriptionRow = Selectable<SubscriptionsTable>;
