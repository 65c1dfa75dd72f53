/**
 * The tables the billing area owns: Stripe customers, subscriptions and the webhook events already processed.
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 */
export const ownedTables = ["stripe_customers", "subscriptions", "stripe_events"] as const;
