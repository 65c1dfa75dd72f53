import type { InstagramAccountsResponse, SubscriptionTier } from "@keepsake/contracts";
import { ACCOUNT_LIMITS, connectionMessages } from "@keepsake/contracts/connections-messages";
import { useId, useState } from "react";
import { useConnect } from "../../api/connections.ts";
import { LoginTradeoffs } from "./login-tradeoffs.tsx";
import "./connections.css";

/** SPEC §2: e.g. 'Upgrade to Pro to connect up to 3 Instagram accounts'. */
export function limitNotice(tier: SubscriptionTier): string {
  if (tier === "free" || tier === "premium") {
    return `Upgrade to Pro to connect up to ${ACCOUNT_LIMITS.pro} Instagram accounts`;
  }
  if (tier === "pro") {
    return `Upgrade to Agency to connect up to ${ACCOUNT_LIMITS.agency} Instagram accounts`;
  }
  return `You have connected the maximum of ${ACCOUNT_LIMITS.agency} Instagram accounts`;
}

/**
 * Whether another consent screen may be opened: below the limit, or to reconnect an account
 * whose access ended (the server allows that at the limit too).
 */
export function canAddAccount(data: InstagramAccountsResponse): boolean {
  return data.can_connect_more || data.accounts.some((a) => a.status === "needs_reconnection");
}

const CHOICES = [
  {
    target: "instagram",
    label: "Instagram Login",
    hint: "A Business or Creator account, signed in on Instagram.",
  },
  {
    target: "facebook",
    label: "Facebook Login",
    hint: "Accounts linked to a Facebook Page you manage (every linked account that fits your plan is added).",
  },
] as const;

/**
 * Add Account for pro and agency (dashboard and Settings): Instagram Login or Facebook Login.
 * At the limit the button is disabled and says why (SPEC §5) before anyone leaves Keepsake.
 */
export function AddAccount({ data }: { data: InstagramAccountsResponse }) {
  const [open, setOpen] = useState(false);
  const choicesId = useId();
  const connect = { instagram: useConnect("instagram"), facebook: useConnect("facebook") };
  const allowed = canAddAccount(data);
  const busy = connect.instagram.isPending || connect.facebook.isPending;

  return (
    <div className="add-account">
      <button
        type="button"
        className="btn btn-primary btn-sm add-account-toggle"
        aria-expanded={allowed && open}
        aria-controls={choicesId}
        onClick={() => setOpen((o) => !o)}
        disabled={!allowed}
      >
        Add Account
      </button>
      {!allowed && (
        <p className="accounts-limit-notice" role="note">
          {connectionMessages.accountLimit(data.limit, data.subscription_tier)}{" "}
          {limitNotice(data.subscription_tier)}
        </p>
      )}
      {allowed && open && (
        <fieldset id={choicesId} className="add-account-choices">
          <legend>Connect with</legend>
          {CHOICES.map((c) => (
            <div key={c.target} className="add-account-choice">
              <button
                type="button"
                className="btn btn-secondary btn-sm"
                onClick={() => connect[c.target].mutate()}
                disabled={busy}
              >
                {c.label}
              </button>
              <span className="muted">{c.hint}</span>
              <LoginTradeoffs via={c.target} />
            </div>
          ))}
        </fieldset>
      )}
    </div>
  );
}
