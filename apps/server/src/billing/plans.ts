import type { Plan, SubscriptionTier } from "@keepsake/contracts";
import type { BillingSettings } from "../config.ts";
import { accountLimit, hasAutomaticBackups, postLimit, TIERS, tierLabel } from "./tier-rules.ts";

/** SPEC §9 prices in US dollars. */
const PRICES: Record<SubscriptionTier, { monthly: number; annual: number }> = {
  free: { monthly: 0, annual: 0 },
  premium: { monthly: 9.99, annual: 99.99 },
  pro: { monthly: 24.99, annual: 249.99 },
  agency: { monthly: 54.99, annual: 549.99 },
};

function features(tier: SubscriptionTier): string[] {
  const limit = accountLimit(tier);
  const posts = postLimit(tier);
  return [
    limit === 1 ? "1 Instagram account" : `Up to ${limit} Instagram accounts`,
    posts === null ? "Unlimited posts" : `Up to ${posts.toLocaleString("en-US")} posts`,
    hasAutomaticBackups(tier) ? "Automatic backups every 10 minutes" : "Manual backups any time",
    "Original quality + captions",
    ...(tier === "pro" || tier === "agency" ? ["Accounts panel and per-account filters"] : []),
  ];
}

/** The four plans (SPEC §3 "Plan"), with the Stripe price ids when billing is configured. */
export function planCatalog(billing: BillingSettings | null): Plan[] {
  return TIERS.map((tier) => {
    const ids = tier === "free" ? null : (billing?.prices[tier] ?? null);
    return {
      tier,
      name: tierLabel(tier),
      monthly_price: PRICES[tier].monthly,
      annual_price: PRICES[tier].annual,
      features: features(tier),
      account_limit: accountLimit(tier),
      post_limit: postLimit(tier),
      automatic_backups: hasAutomaticBackups(tier),
      stripe_price_ids: { monthly: ids?.monthly ?? null, annual: ids?.annual ?? null },
    };
  });
}

/** The plan and interval a configured price id stands for. */
export function priceInfo(
  billing: BillingSettings,
  priceId: string,
): { tier: SubscriptionTier; interval: "month" | "year"; amount: number } | null {
  for (const tier of TIERS) {
    if (tier === "free") continue;
    const ids = billing.prices[tier];
    if (ids.monthly === priceId) return { tier, interval: "month", amount: PRICES[tier].monthly };
    if (ids.annual === priceId) return { tier, interval: "year", amount: PRICES[tier].annual };
  }
  return null;
}
