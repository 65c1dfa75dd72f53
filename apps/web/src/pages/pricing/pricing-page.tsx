import { useEffect, useState } from "react";
import { useCheckout, usePlans, usePortal, useSubscription } from "../../api/billing.ts";
import { type Faq, FaqSection } from "../../components/faq-section.tsx";
import { Icon } from "../../components/icons.tsx";
import { useAuth } from "../../lib/auth.tsx";
import { Link, useLocation, useNavigate, useSearchParams } from "../../lib/navigation.tsx";
import {
  annualSavingPercent,
  type BillingCycle,
  type Plan,
  planFor,
  upgradeTargets,
} from "../../lib/plans.ts";
import { toast } from "../../lib/toast.ts";
import { type PlanAction, PlanCard } from "./plan-card.tsx";

const faqs: Faq[] = [
  {
    q: "Is there really a free plan?",
    a: "Yes. The Free plan backs up up to 100 posts from one Instagram account with manual backups, and it needs no credit card.",
  },
  {
    q: "Can I change or cancel my plan later?",
    a: "Any time. Upgrade from the pricing page; to cancel, open Settings → Subscription → Manage Billing, which takes you to the billing portal, and cancel there. Your plan stays until the end of the period you paid for.",
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
    a: "Paying annually saves about 17% compared with paying monthly for a year, on every paid plan (each card shows its own saving).",
  },
];

export function PricingPage() {
  const { user } = useAuth();
  const navigate = useNavigate();
  const location = useLocation();
  const [params, setParams] = useSearchParams();
  const [cycle, setCycle] = useState<BillingCycle>("monthly");
  const { plans, loading: plansLoading } = usePlans();
  const subscription = useSubscription(user !== null);
  const checkout = useCheckout("Failed to start checkout");
  const portal = usePortal();
  // The subscription answer is fresher than the stored profile.
  const tier = subscription.data?.tier ?? user?.subscription_tier ?? null;
  const current = user ? planFor(tier) : null;
  const bestSaving = Math.max(...plans.map(annualSavingPercent));
  const targets = upgradeTargets(tier);

  // Back from Checkout without paying (SPEC §8 toasts), then a clean URL.
  const cancelled = params.get("checkout") === "cancelled";
  useEffect(() => {
    if (!cancelled) return;
    toast.info(`Checkout cancelled. You are still on the ${planFor(tier).name} plan.`, {
      toastId: "checkout-cancelled",
    });
    setParams({}, { replace: true });
  }, [cancelled, tier, setParams]);

  function actionFor(plan: Plan): PlanAction {
    if (!user) return { kind: "visitor" };
    if (plan.tier === tier) return { kind: "current" };
    // A paid plan goes back to free by cancelling in the billing portal (SPEC: Manage Billing).
    if (plan.tier === "free") return { kind: "downgrade", busy: portal.isPending };
    if (targets.includes(plan.tier)) {
      return {
        kind: "upgrade",
        busy: checkout.isPending && checkout.variables?.tier === plan.tier,
        // Until the plans' price ids arrive, a click would only say the plan cannot be bought.
        waiting: plansLoading,
      };
    }
    const higher =
      plans.findIndex((p) => p.tier === plan.tier) > plans.findIndex((p) => p.tier === tier);
    return {
      kind: "none",
      note: higher ? "Available after your next upgrade" : "Change plans in Manage Billing",
    };
  }

  function choose(plan: Plan) {
    const action = actionFor(plan);
    if (action.kind === "visitor") {
      if (plan.tier === "free") {
        navigate("/register");
        return;
      }
      toast.info("Please log in to subscribe");
      navigate("/login", { state: { from: { pathname: location.pathname } } });
      return;
    }
    if (action.kind === "current") {
      if (plan.tier === "free") toast.info("You are already on the free plan");
      return;
    }
    if (action.kind === "downgrade") {
      portal.mutate();
      return;
    }
    if (action.kind === "upgrade") {
      const priceId = cycle === "annual" ? plan.priceIds?.annual : plan.priceIds?.monthly;
      checkout.mutate({ tier: plan.tier, priceId: priceId ?? null });
    }
  }

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
            <div className="current-plan-actions">
              {tier !== "free" && subscription.data?.has_billing_account && (
                <button
                  type="button"
                  className="btn btn-secondary"
                  onClick={() => portal.mutate()}
                  disabled={portal.isPending}
                >
                  Manage Billing
                </button>
              )}
              <Link to="/settings?tab=subscription" className="btn btn-secondary">
                Manage in Settings
              </Link>
            </div>
          </div>
        )}
        <div className="plan-grid">
          {plans.map((plan) => (
            <PlanCard
              key={plan.tier}
              plan={plan}
              cycle={cycle}
              action={actionFor(plan)}
              onChoose={() => choose(plan)}
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
