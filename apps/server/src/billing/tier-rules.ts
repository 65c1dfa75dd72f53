/** Which plans include what. The billing area extends this module; keep its exports stable. */

const API_TIERS = new Set(["pro", "agency"]);

/** Whether a plan includes the public API: pro and agency (legacy "PRO" counts as pro). */
export function hasApiAccess(tier: string): boolean {
  return API_TIERS.has(tier.toLowerCase());
}
