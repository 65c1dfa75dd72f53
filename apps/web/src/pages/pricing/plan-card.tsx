import type { ReactNode } from "react";
import { Icon } from "../../components/icons.tsx";
import { annualSavingPercent, type BillingCycle, formatPrice, type Plan } from "../../lib/plans.ts";

export type PlanAction =
  | { kind: "visitor" }
  | { kind: "current" }
  | { kind: "downgrade"; busy: boolean }
  | { kind: "upgrade"; busy: boolean; waiting?: boolean }
  | { kind: "none"; note: string };

/** One plan on /pricing; what its button does is decided by the page (SPEC §6). */
export function PlanCard({
  plan,
  cycle,
  action,
  onChoose,
}: {
  plan: Plan;
  cycle: BillingCycle;
  action: PlanAction;
  onChoose: () => void;
}) {
  const saving = annualSavingPercent(plan);
  const price = cycle === "annual" ? plan.annual : plan.monthly;
  const period = plan.monthly === 0 ? "forever" : cycle === "annual" ? "/year" : "/month";
  const style = `btn btn-block ${plan.popular ? "btn-primary" : "btn-secondary"}`;

  let button: ReactNode;
  switch (action.kind) {
    case "visitor":
      button = (
        <button type="button" className={style} onClick={onChoose} data-tier={plan.tier}>
          {plan.monthly === 0 ? "Start Free" : `Get ${plan.name}`}
        </button>
      );
      break;
    case "current":
      button = (
        <button type="button" className="btn btn-secondary btn-block" onClick={onChoose}>
          Current Plan
        </button>
      );
      break;
    case "downgrade":
      button = (
        <button
          type="button"
          className="btn btn-secondary btn-block"
          onClick={onChoose}
          disabled={action.busy}
          aria-busy={action.busy}
        >
          {action.busy ? "Redirecting..." : "Downgrade in Manage Billing"}
        </button>
      );
      break;
    case "upgrade":
      button = (
        <button
          type="button"
          className={style}
          onClick={onChoose}
          disabled={action.busy || action.waiting}
          aria-busy={action.busy}
          data-tier={plan.tier}
        >
          {action.busy ? "Redirecting..." : `Upgrade to ${plan.name}`}
        </button>
      );
      break;
    case "none":
      button = <p className="plan-note plan-note-muted">{action.note}</p>;
      break;
  }

  return (
    <article
      className={`plan-card${plan.popular ? " plan-card-popular" : ""}${action.kind === "current" ? " plan-card-current" : ""}`}
      aria-labelledby={`plan-${plan.tier}`}
      data-testid={`plan-${plan.tier}`}
    >
      {plan.popular && <span className="plan-ribbon">Most Popular</span>}
      <h2 id={`plan-${plan.tier}`} className="plan-name">
        {plan.name}
      </h2>
      <p className="plan-description">{plan.description}</p>
      <p className="plan-price">
        <span className="plan-amount">{formatPrice(price)}</span>
        <span className="plan-period">{period}</span>
      </p>
      <p className="plan-note">
        {plan.monthly === 0 ? (
          "No credit card required"
        ) : cycle === "annual" ? (
          <>
            <span className="badge badge-success">Save {saving}%</span>{" "}
            {formatPrice(plan.annual / 12)}/month billed annually
          </>
        ) : (
          `or ${formatPrice(plan.annual)}/year (save ${saving}%)`
        )}
      </p>
      {button}
      <PlanFeatures features={plan.features} />
    </article>
  );
}

/** A plan's features as a checked list (/pricing cards and Settings → Subscription). */
export function PlanFeatures({ features }: { features: readonly string[] }) {
  return (
    <ul className="plan-features">
      {features.map((f) => (
        <li key={f}>
          <Icon.Check /> {f}
        </li>
      ))}
    </ul>
  );
}
