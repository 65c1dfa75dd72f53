/**
 * SPEC §3 tier styles in the admin list: today's tiers and the legacy values FREE, BASIC,
 * PRO and PREMIUM share styles case-insensitively; anything else takes the FREE style.
 */
const TIER_CLASS: Record<string, string> = {
  free: "tier-badge tier-free",
  basic: "tier-badge tier-basic",
  premium: "tier-badge tier-premium",
  pro: "tier-badge tier-pro",
  agency: "tier-badge tier-agency",
};

export function tierBadgeClass(tier: string | null | undefined): string {
  return TIER_CLASS[(tier ?? "").toLowerCase()] ?? (TIER_CLASS.free as string);
}
