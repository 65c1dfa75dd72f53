import { pausedAccountMessages } from "@keepsake/contracts/connections-messages";
import { useKeepAccount } from "../../api/billing.ts";
import { useInstagramAccounts } from "../../api/connections.ts";
import { Link } from "../../lib/navigation.tsx";
import { tierName } from "../../lib/plans.ts";

/**
 * After a downgrade the extra accounts stay connected but are not synced: this says so and
 * lets the user choose which accounts to keep (or disconnect the others in the panel).
 */
export function PausedAccountsNotice() {
  const accounts = useInstagramAccounts();
  const keep = useKeepAccount();
  const list = accounts.data?.accounts ?? [];
  const paused = list.filter((a) => a.paused_by_plan);
  if (paused.length === 0 || !accounts.data) return null;
  return (
    <section className="paused-accounts-notice" role="status" data-testid="paused-accounts">
      <p>
        {pausedAccountMessages.notice(
          paused.length,
          accounts.data.limit,
          tierName(accounts.data.subscription_tier),
        )}
      </p>
      <ul className="paused-accounts">
        {paused.map((a) => (
          <li key={a.id}>
            @{a.username} is paused{" "}
            <button
              type="button"
              className="btn btn-secondary btn-sm"
              disabled={keep.isPending}
              onClick={() => keep.mutate(a.id)}
            >
              Keep @{a.username}
            </button>
          </li>
        ))}
      </ul>
      <Link to="/pricing" className="btn btn-primary btn-sm">
        Upgrade to sync every account
      </Link>
    </section>
  );
}
