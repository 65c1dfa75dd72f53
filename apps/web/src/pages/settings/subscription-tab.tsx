/** Settings → Subscription: its content arrives with the billing issue. */
export function SubscriptionTab() {
  return <p className="muted">Your plan and billing details will appear here.</p>;
}
