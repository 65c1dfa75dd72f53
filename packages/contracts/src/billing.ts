import { z } from "zod";
import { subscriptionTier } from "./auth.ts";

/** SPEC §3 "Plan": one of the four plans with its prices and the rules it carries. */
export const plan = z.object({
  tier: subscriptionTier,
  name: z.string(),
  /** US dollars per month, billed monthly. */
  monthly_price: z.number(),
  /** US dollars per year, billed annually. */
  annual_price: z.number(),
  features: z.array(z.string()),
  account_limit: z.number().int(),
  /** null: unlimited. */
  post_limit: z.number().int().nullable(),
  automatic_backups: z.boolean(),
  /** Stripe price ids; null for free (and when billing is not configured). */
  stripe_price_ids: z.object({
    monthly: z.string().nullable(),
    annual: z.string().nullable(),
  }),
});
export type Plan = z.infer<typeof plan>;

export const plansResponse = z.object({ plans: z.array(plan) });
export type PlansResponse = z.infer<typeof plansResponse>;

/** Stripe subscription statuses Keepsake shows, plus `free` for users without one. */
export const subscriptionStatus = z.enum([
  "free",
  "active",
  "trialing",
  "past_due",
  "canceled",
  "incomplete",
  "unpaid",
]);
export type SubscriptionStatus = z.infer<typeof subscriptionStatus>;

/** SPEC §3 "Subscription". */
export const subscription = z.object({
  tier: subscriptionTier,
  status: subscriptionStatus,
  /** US dollars charged per billing interval; 0 for free. */
  amount: z.number(),
  interval: z.enum(["month", "year"]).nullable(),
  current_period_start: z.string().nullable(),
  current_period_end: z.string().nullable(),
  cancel_at_period_end: z.boolean(),
  /** True when the user has a Stripe customer, so Manage Billing can open the portal. */
  has_billing_account: z.boolean(),
});
export type Subscription = z.infer<typeof subscription>;

/** SPEC §3 "Checkout payload". */
export const checkoutRequest = z.object({
  price_id: z.string({ error: "price_id is required" }).min(1, "price_id is required"),
  success_url: z.string({ error: "success_url is required" }).min(1, "success_url is required"),
  cancel_url: z.string({ error: "cancel_url is required" }).min(1, "cancel_url is required"),
});
export type CheckoutRequest = z.infer<typeof checkoutRequest>;

export const checkoutResponse = z.object({
  checkout_url: z.string(),
  /** `portal`: the user already has a live subscription and changes plans in the portal. */
  kind: z.enum(["checkout", "portal"]),
});
export type CheckoutResponse = z.infer<typeof checkoutResponse>;

export const portalResponse = z.object({ portal_url: z.string() });

/** POST /api/webhooks/stripe: the event was verified and recorded (or seen before). */
export const webhookReceipt = z.object({ received: z.boolean(), duplicate: z.boolean() });

/** PUT /api/accounts/instagram-accounts/{id}/keep: after a downgrade, the account kept syncing. */
export const keepAccountResponse = z.object({
  message: z.string(),
  /** Accounts still paused because they are beyond the plan's limit. */
  paused_accounts: z.number().int(),
});
export type PortalResponse = z.infer<typeof portalResponse>;

export const billingMessages = {
  unknownPrice: "Unknown price_id: choose one of the plans on the pricing page.",
  foreignReturnUrl: "success_url and cancel_url must point back to Keepsake.",
  noBillingAccount:
    "You have no billing account yet. Upgrade from the pricing page to start a subscription.",
  notConfigured: "Billing is not configured on this server.",
  checkoutBusy:
    "Another checkout for your account is still being prepared. Please try again in a moment.",
  accountPaused:
    "This Instagram account is paused: your plan allows fewer accounts than you have connected. Keep it on the dashboard, or disconnect another account.",
} as const;
