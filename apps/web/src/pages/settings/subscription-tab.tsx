import type { Subscription } from "@keepsake/contracts";
import { useCheckout, usePlans, usePortal, useSubscription } from "../../api/billing.ts";
import { Spinner } from "../../components/spinner.tsx";
import { useAuth } from "../../lib/auth.tsx";
import { formatDate } from "../../lib/format.ts";
import {
  formatPrice,
  monthlyEquivalent,
  type Plan,
  planFor,
  upgradeTargets,
} from "../../lib/plans.ts";
import { PlanFeatures } from "../pricing/plan-card.tsx";
import "./subscription-tab.css";

/** "$24.99/month", or for annual billing "$20.83/month ($249.99/year)" (SPEC §9). */
export function billingAmountText(s: Pick<Subscription, "amount" | "interval">): string {
  const perMonth = `${formatPrice(monthlyEquivalent(s.amount, s.interval))}/month`;
  return s.interval === "year" ? `${perMonth} (${formatPrice(s.amount)}/year)` : perMonth;
}

function StatusNotice({ s }: { s: Subscription }) {
  if (s.status === "past_due") {
    return (
      <p className="subscription-alert subscription-alert-danger" role="alert">
        Your last payment failed. Update your card in Manage Billing to keep your{" "}
        {planFor(s.tier).name} plan.
      </p>
    );
  }
  if (s.cancel_at_period_end && s.current_period_end) {
    return (
      <p className="subscription-alert" role="status">
        Your plan is cancelled and ends on {formatDate(s.current_period_end)}. You move to the Free
        plan then; renew it any time in Manage Billing.
      </p>
    );
  }
  return null;
}

function ComparePlans({ plans, tier }: { plans: Plan[]; tier: string }) {
  return (
    <table className="compare-plans">
      <caption>Compare plans</caption>
      <thead>
        <tr>
          <th scope="col">Plan</th>
          <th scope="col">Price</th>
          <th scope="col">Features</th>
        </tr>
      </thead>
      <tbody>
        {plans.map((p) => (
          <tr key={p.tier} className={p.tier === tier ? "compare-current" : undefined}>
            <th scope="row">
              {p.name}
              {p.tier === tier && <span className="badge badge-success">Current</span>}
            </th>
            <td>{p.monthly === 0 ? "Free" : `${formatPrice(p.monthly)}/month`}</td>
            <td>{p.features.slice(0, 3).join(" · ")}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** SPEC §2 Settings → Subscription: plan, features, billing, compare, upgrade, Manage Billing. */
export function SubscriptionTab() {
  const { user } = useAuth();
  const current = useSubscription(user !== null);
  // Until the plans' price ids arrive, an upgrade would only say the plan cannot be bought.
  const { plans, loading: plansLoading } = usePlans();
  const checkout = useCheckout("Failed to start upgrade process");
  const portal = usePortal();

  if (current.isPending) return <Spinner label="Loading..." />;
  if (current.isLoadingError) {
    return <p className="muted">Your subscription could not be loaded. Please try again.</p>;
  }
  const s = current.data;
  const plan = plans.find((p) => p.tier === s.tier) ?? planFor(s.tier);
  const targets = upgradeTargets(s.tier);
  // SPEC §4: active shows 'Active subscription'; anything else 'Free plan'.
  const statusLabel = s.status === "active" ? "Active subscription" : "Free plan";

  return (
    <div className="subscription-tab" data-testid="subscription-tab">
      <section className="card subscription-current" aria-labelledby="current-plan-title">
        <div className="subscription-head">
          <div>
            <span className="eyebrow">Current plan</span>
            <h2 id="current-plan-title" data-testid="current-plan-name">
              {plan.name}
            </h2>
          </div>
          <span
            className={`badge ${s.status === "active" ? "badge-success" : s.status === "past_due" ? "badge-danger" : ""}`}
            data-testid="subscription-status"
          >
            {s.status === "past_due" ? "Payment past due" : statusLabel}
          </span>
        </div>
        <StatusNotice s={s} />
        <PlanFeatures features={plan.features} />
        <dl className="subscription-billing">
          <dt>Billing</dt>
          <dd data-testid="billing-amount">
            {s.interval ? billingAmountText(s) : s.tier === "free" ? "$0/month" : "Not billed"}
          </dd>
          {s.current_period_end && (
            <>
              <dt>{s.cancel_at_period_end ? "Ends on" : "Renews on"}</dt>
              <dd>{formatDate(s.current_period_end)}</dd>
            </>
          )}
        </dl>
        <div className="subscription-actions">
          {targets.map((tier) => {
            const target = plans.find((p) => p.tier === tier);
            if (!target) return null;
            const busy = checkout.isPending && checkout.variables?.tier === tier;
            return (
              <button
                key={tier}
                type="button"
                className="btn btn-primary"
                disabled={busy || plansLoading}
                onClick={() =>
                  checkout.mutate({
                    tier,
                    // An upgrade keeps the billing interval the user pays by now.
                    priceId:
                      (s.interval === "year"
                        ? target.priceIds?.annual
                        : target.priceIds?.monthly) ?? null,
                  })
                }
              >
                {busy ? "Redirecting..." : `Upgrade to ${target.name}`}
              </button>
            );
          })}
          {s.tier !== "free" && (
            <button
              type="button"
              className="btn btn-secondary"
              onClick={() => portal.mutate()}
              disabled={portal.isPending}
            >
              {portal.isPending ? "Opening..." : "Manage Billing"}
            </button>
          )}
        </div>
      </section>
      <ComparePlans plans={plans} tier={s.tier} />
    </div>
  );
}
