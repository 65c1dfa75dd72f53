/**
 * The tables the billing area owns: Stripe customers, subscriptions, the webhook events already
 * processed, and the claims that let one billing change of a user run at a time.
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 */
export const ownedTables = [
  "stripe_customers",
  "subscriptions",
  "stripe_events",
  "billing_claims",
] as const;
