import {
  ACCOUNT_LIMITS,
  AUTO_SYNC_TIERS,
  POST_LIMITS,
  type SubscriptionTier,
} from "@keepsake/contracts";

/**
 * Every tier rule the server enforces, in one place (SPEC §1, §6, §9). Routes, services and
 * jobs ask these functions; none keeps its own copy of a limit. The numbers are the shared
 * contract values the screens show too.
 */

export const TIERS: readonly SubscriptionTier[] = ["free", "premium", "pro", "agency"];

const LABELS: Record<SubscriptionTier, string> = {
  free: "Free",
  premium: "Premium",
  pro: "Pro",
  agency: "Agency",
};

/** Legacy tier values (older data, the admin list) mapped onto ours. */
const LEGACY: Record<string, SubscriptionTier> = {
  FREE: "free",
  BASIC: "premium",
  PREMIUM: "premium",
  PRO: "pro",
  AGENCY: "agency",
};

/** Our tier for any stored or received value; unknown values are treated as free. */
export function normalizeTier(value: unknown): SubscriptionTier {
  if (typeof value !== "string") return "free";
  const v = value.trim();
  if ((TIERS as readonly string[]).includes(v)) return v as SubscriptionTier;
  return LEGACY[v.toUpperCase()] ?? "free";
}

export function tierLabel(tier: unknown): string {
  return LABELS[normalizeTier(tier)];
}

/** How many Instagram accounts the plan may connect (and sync). */
export function accountLimit(tier: unknown): number {
  return ACCOUNT_LIMITS[normalizeTier(tier)];
}

/** How many posts the plan backs up; null is unlimited. */
export function postLimit(tier: unknown): number | null {
  return POST_LIMITS[normalizeTier(tier)];
}

/** Paid plans are synced automatically every 10 minutes; free is manual only. */
export function hasAutomaticBackups(tier: unknown): boolean {
  return (AUTO_SYNC_TIERS as readonly string[]).includes(normalizeTier(tier));
}

/** The tiers the scheduler syncs. */
export function automaticBackupTiers(): SubscriptionTier[] {
  return TIERS.filter(hasAutomaticBackups);
}

/** The accounts panel and the per-account filters: pro and agency. */
export function hasAccountsPanel(tier: unknown): boolean {
  const t = normalizeTier(tier);
  return t === "pro" || t === "agency";
}

/** The public API (API keys): pro and agency. */
export function hasApiAccess(tier: unknown): boolean {
  return hasAccountsPanel(tier);
}

export function isPaidTier(tier: unknown): boolean {
  return normalizeTier(tier) !== "free";
}
