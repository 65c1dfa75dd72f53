import { useEffect, useState } from "react";
import { useInvalidatePlan, useSubscription } from "../../api/billing.ts";
import { useContactDetails } from "../../api/site.ts";
import { Spinner } from "../../components/spinner.tsx";
import { useAuth } from "../../lib/auth.tsx";
import { Link, useSearchParams } from "../../lib/navigation.tsx";
import { planFor } from "../../lib/plans.ts";
import { toast } from "../../lib/toast.ts";

export const RETURN_POLL_MS = 2_000;
/** After this long the page says what to do instead of only waiting. */
export const RETURN_PATIENCE_MS = 60_000;

/**
 * Back from Stripe Checkout: the plan changes only when Stripe's webhook lands, so this page
 * polls the subscription until it shows the plan that was bought.
 */
export function BillingReturnPage() {
  const [params] = useSearchParams();
  const wanted = params.get("tier");
  const { refreshUser } = useAuth();
  const invalidate = useInvalidatePlan();
  const contact = useContactDetails();
  const [done, setDone] = useState(false);
  const [slow, setSlow] = useState(false);
  const current = useSubscription(true, done ? false : RETURN_POLL_MS);
  const tier = current.data?.tier;
  const landed =
    tier !== undefined &&
    (wanted ? tier === wanted : tier !== "free") &&
    current.data?.status !== "free";

  useEffect(() => {
    const timer = setTimeout(() => setSlow(true), RETURN_PATIENCE_MS);
    return () => clearTimeout(timer);
  }, []);

  useEffect(() => {
    if (!landed || done) return;
    setDone(true);
    void refreshUser();
    void invalidate();
    toast.success(`You're on the ${planFor(tier).name} plan now!`, { toastId: "plan-landed" });
  }, [landed, done, tier, refreshUser, invalidate]);

  return (
    <div className="container page billing-return">
      <title>Finishing your upgrade · Keepsake</title>
      {done ? (
        <section className="card" data-testid="upgrade-done">
          <h1 className="page-title">Welcome to {planFor(tier).name}!</h1>
          <p>Your plan is active. Automatic backups and your new limits apply right away.</p>
          <div className="subscription-actions">
            <Link to="/dashboard" className="btn btn-primary">
              Go to Dashboard
            </Link>
            <Link to="/settings?tab=subscription" className="btn btn-secondary">
              View subscription
            </Link>
          </div>
        </section>
      ) : (
        <section className="card" data-testid="upgrade-pending" aria-live="polite">
          <h1 className="page-title">Finishing your upgrade…</h1>
          <Spinner label="Waiting for the payment confirmation from Stripe" />
          {slow && (
            <p data-testid="upgrade-slow">
              This is taking longer than a minute. Your payment is safe: your plan changes as soon
              as Stripe confirms it. You can leave this page and check Settings → Subscription in a
              few minutes. If it still shows your old plan after an hour, write to{" "}
              <a href={`mailto:${contact.support_email}`}>{contact.support_email}</a>.
            </p>
          )}
        </section>
      )}
    </div>
  );
}
