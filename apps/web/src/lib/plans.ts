import type { SubscriptionTier } from "@keepsake/contracts";

export type BillingCycle = "monthly" | "annual";

export interface Plan {
  tier: SubscriptionTier;
  name: string;
  description: string;
  /** US dollars per month, billed monthly. */
  monthly: number;
  /** US dollars per year, billed annually. */
  annual: number;
  features: string[];
  popular?: boolean;
  /** Stripe price ids from the plans endpoint; absent in the built-in list. */
  priceIds?: { monthly: string | null; annual: string | null };
}

/** The built-in plan list (SPEC §1 and §9), used until the plans endpoint answers. */
export const plans: Plan[] = [
  {
    tier: "free",
    name: "Free",
    description: "Try Keepsake on your latest posts.",
    monthly: 0,
    annual: 0,
    features: [
      "1 Instagram account",
      "Up to 100 posts",
      "Manual backups any time",
      "Original quality + captions",
      "No credit card required",
    ],
  },
  {
    tier: "premium",
    name: "Premium",
    description: "For creators who post every week.",
    monthly: 9.99,
    annual: 99.99,
    popular: true,
    features: [
      "1 Instagram account",
      "Up to 5,000 posts",
      "Automatic backups every 10 minutes",
      "Posts, reels, carousels and stories",
      "Priority email support",
    ],
  },
  {
    tier: "pro",
    name: "Pro",
    description: "For professionals with several brands.",
    monthly: 24.99,
    annual: 249.99,
    features: [
      "Up to 3 Instagram accounts",
      "Unlimited posts",
      "Automatic backups every 10 minutes",
      "Per-account filters and stats",
      "Priority email support",
    ],
  },
  {
    tier: "agency",
    name: "Agency",
    description: "For teams managing client accounts.",
    monthly: 54.99,
    annual: 549.99,
    features: [
      "Up to 10 Instagram accounts",
      "Unlimited posts",
      "Automatic backups every 10 minutes",
      "One dashboard for every client",
      "Dedicated support",
    ],
  },
];

/** Pro and agency connect several accounts and get the accounts panel and account filters (SPEC §6). */
export function isMultiAccountTier(tier: string | null | undefined): boolean {
  return tier === "pro" || tier === "agency";
}

export function planFor(tier: string | null | undefined): Plan {
  return plans.find((p) => p.tier === tier) ?? (plans[0] as Plan);
}

/** Whole-percent saving of paying annually rather than 12 months (SPEC §9: 17% per plan). */
export function annualSavingPercent(plan: Pick<Plan, "monthly" | "annual">): number {
  if (plan.monthly <= 0) return 0;
  return Math.round((1 - plan.annual / (plan.monthly * 12)) * 100);
}

export function formatPrice(amount: number): string {
  return amount === 0 ? "$0" : `$${amount.toFixed(2)}`;
}

const ORDER = ["free", "premium", "pro", "agency"] as const;

/**
 * SPEC §6 upgrade buttons: free sees premium and pro; premium sees pro and agency; pro sees
 * agency; agency sees none.
 */
export function upgradeTargets(tier: string | null | undefined): SubscriptionTier[] {
  const i = ORDER.indexOf((tier ?? "free") as SubscriptionTier);
  const from = i < 0 ? 0 : i;
  return ORDER.slice(from + 1, from + 3);
}

export function tierName(tier: string | null | undefined): string {
  return planFor(tier).name;
}

/** Whole-dollar-and-cents per month of a price billed per `interval`. */
export function monthlyEquivalent(amount: number, interval: "month" | "year" | null): number {
  return interval === "year" ? Math.round((amount / 12) * 100) / 100 : amount;
}
