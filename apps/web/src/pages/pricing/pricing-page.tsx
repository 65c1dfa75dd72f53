import { type ReactNode, useState } from "react";
import { Link } from "react-router";
import { toast } from "react-toastify";
import { type Faq, FaqSection } from "../../components/faq-section.tsx";
import { Icon } from "../../components/icons.tsx";
import { useAuth } from "../../lib/auth.tsx";
import {
  annualSavingPercent,
  type BillingCycle,
  formatPrice,
  type Plan,
  planFor,
  plans,
} from "../../lib/plans.ts";

const faqs: Faq[] = [
  {
    q: "Is there really a free plan?",
    a: "Yes. The Free plan backs up up to 100 posts from one Instagram account with manual backups, and it needs no credit card.",
  },
  {
    q: "Can I change or cancel my plan later?",
    a: "Any time. Upgrade from the pricing page; to cancel, open Settings → Subscription → Manage Subscription, which takes you to the billing portal.",
  },
  {
    q: "Do you offer refunds?",
    a: "Every paid plan comes with a 30-day money-back guarantee. If Keepsake is not for you, contact us within 30 days for a full refund.",
  },
  {
    q: "Where are my backups stored?",
    a: "In your own Google Drive, in a Keepsake folder. We never keep copies of your media on our servers.",
  },
  {
    q: "What kind of Instagram account do I need?",
    a: "A professional (Business or Creator) account linked to a Facebook Page. Personal accounts are not fully supported.",
  },
  {
    q: "How much do I save with annual billing?",
    a: "Paying annually saves about 17% compared with paying monthly for a year, on every paid plan.",
  },
];

function PlanCard({
  plan,
  cycle,
  currentTier,
  signedIn,
}: {
  plan: Plan;
  cycle: BillingCycle;
  currentTier: string | null;
  signedIn: boolean;
}) {
  const saving = annualSavingPercent(plan);
  const isCurrent = currentTier === plan.tier;
  const price = cycle === "annual" ? plan.annual : plan.monthly;
  const period = plan.monthly === 0 ? "forever" : cycle === "annual" ? "/year" : "/month";

  let action: ReactNode;
  if (!signedIn) {
    action = (
      <Link
        to="/register"
        className={`btn btn-block ${plan.popular ? "btn-primary" : "btn-secondary"}`}
      >
        {plan.monthly === 0 ? "Start Free" : `Get ${plan.name}`}
      </Link>
    );
  } else if (isCurrent) {
    action = (
      <button type="button" className="btn btn-secondary btn-block" disabled>
        Current Plan
      </button>
    );
  } else if (plan.monthly === 0) {
    action = (
      <button
        type="button"
        className="btn btn-secondary btn-block"
        onClick={() => toast.info("You are already on the free plan")}
      >
        Free Plan
      </button>
    );
  } else {
    // Checkout arrives with the billing issue.
    action = (
      <button
        type="button"
        className={`btn btn-block ${plan.popular ? "btn-primary" : "btn-secondary"}`}
        data-tier={plan.tier}
      >
        Upgrade to {plan.name}
      </button>
    );
  }

  return (
    <article
      className={`plan-card${plan.popular ? " plan-card-popular" : ""}${isCurrent ? " plan-card-current" : ""}`}
      aria-labelledby={`plan-${plan.tier}`}
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
        {plan.monthly === 0
          ? "No credit card required"
          : cycle === "annual"
            ? `Save ${saving}% — ${formatPrice(plan.annual / 12)}/month billed annually`
            : `or ${formatPrice(plan.annual)}/year (save ${saving}%)`}
      </p>
      {action}
      <ul className="plan-features">
        {plan.features.map((f) => (
          <li key={f}>
            <Icon.Check /> {f}
          </li>
        ))}
      </ul>
    </article>
  );
}

export function PricingPage() {
  const { user } = useAuth();
  const [cycle, setCycle] = useState<BillingCycle>("monthly");
  const current = user ? planFor(user.subscription_tier) : null;
  const bestSaving = Math.max(...plans.map(annualSavingPercent));

  return (
    <div className="pricing">
      <title>Pricing · Keepsake</title>
      <section className="pricing-hero">
        <div className="container">
          <span className="eyebrow">Pricing</span>
          <h1>Simple pricing for every creator</h1>
          <p>Start free. Upgrade when you want automatic backups or more accounts.</p>
          <fieldset className="cycle-toggle">
            <legend className="visually-hidden">Billing cycle</legend>
            <label
              className={cycle === "monthly" ? "cycle-option cycle-option-active" : "cycle-option"}
            >
              <input
                type="radio"
                name="billing-cycle"
                value="monthly"
                checked={cycle === "monthly"}
                onChange={() => setCycle("monthly")}
              />
              Monthly
            </label>
            <label
              className={cycle === "annual" ? "cycle-option cycle-option-active" : "cycle-option"}
            >
              <input
                type="radio"
                name="billing-cycle"
                value="annual"
                checked={cycle === "annual"}
                onChange={() => setCycle("annual")}
              />
              Annual <span className="badge badge-success">Save {bestSaving}%</span>
            </label>
          </fieldset>
        </div>
      </section>

      <section className="container">
        {current && (
          <div className="current-plan card" data-testid="current-plan">
            <div>
              <span className="eyebrow">Your current plan</span>
              <h2>{current.name}</h2>
              <p>{current.features.slice(0, 3).join(" · ")}</p>
            </div>
            <Link to="/settings" className="btn btn-secondary">
              Manage in Settings
            </Link>
          </div>
        )}
        <div className="plan-grid">
          {plans.map((plan) => (
            <PlanCard
              key={plan.tier}
              plan={plan}
              cycle={cycle}
              currentTier={current?.tier ?? null}
              signedIn={user !== null}
            />
          ))}
        </div>
        <p className="pricing-guarantee">
          <Icon.Shield /> Every paid plan includes a 30-day money-back guarantee.
        </p>
      </section>

      <FaqSection faqs={faqs} titleId="faq-title" className="container" />
    </div>
  );
}
