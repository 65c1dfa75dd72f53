import { principalOf } from "../auth/index.ts";
import { hasAccountsPanel } from "./tier-rules.ts";

/** The per-account filter is a Pro and Agency feature: other plans see every account. */
export const scopedToPlan = <Q extends { account_id?: string | undefined }>(
  req: Parameters<typeof principalOf>[0],
  q: Q,
): Q =>
  q.account_id && !hasAccountsPanel(principalOf(req).user.subscription_tier)
    ? { ...q, account_id: undefined }
    : q;
