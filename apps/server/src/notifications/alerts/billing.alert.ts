import { CAUSES, FIXES } from "../../health/index.ts";
import { alertKind, defineAlert } from "./define.ts";

/**
 * Billing alerts, once per Stripe event the billing area handled: a failed payment, a plan
 * change, and the accounts a smaller plan paused (worded as the health state's paused cause).
 */
const kind = alertKind("alert_billing", "alert-billing", {
  label: "Billing alerts",
  why: "You are receiving this e-mail because of a change to your Keepsake subscription.",
  setting: {
    label: "Billing",
    description: "A failed payment, a plan change, accounts paused by a downgrade.",
  },
});

const SUBSCRIPTION = "/settings?tab=subscription";

export const billingAlert = defineAlert({
  kind,
  hooks: {
    async billingEvent(e, ctx) {
      if (e.type === "invoice.payment_failed") {
        await ctx.notify(e.userId, {
          key: `alert:payment-failed:${e.eventId}`,
          kind,
          title: "Your Keepsake payment failed",
          paragraphs: [
            // The health state's "payment_failed" cause (the plan as the event left it).
            CAUSES.paymentFailed(e.after, e.periodEnd),
            `If every retry fails, the subscription ends and your plan returns to Free: automatic backups stop, and accounts beyond the free plan's one are paused. ${FIXES.updatePayment.label} to keep everything running.`,
          ],
          action: FIXES.updatePayment,
        });
      }
      if (e.after === e.before) return;
      await ctx.notify(e.userId, {
        key: `alert:plan-changed:${e.eventId}`,
        kind,
        title: `Your plan is now ${e.after[0]?.toUpperCase()}${e.after.slice(1)}`,
        paragraphs: [
          `Your Keepsake plan changed from ${e.before} to ${e.after}.`,
          e.after === "free"
            ? "Automatic backups have stopped; press Backup now on the dashboard whenever you want a backup."
            : "Your plan's limits apply now.",
        ],
        action: { label: "View subscription", path: SUBSCRIPTION },
      });
      const paused = await ctx.sources.pausedAccounts(e.userId);
      if (paused.length === 0) return;
      await ctx.notify(e.userId, {
        key: `alert:accounts-paused:${e.eventId}`,
        kind,
        title: `${paused.length} ${paused.length === 1 ? "account is" : "accounts are"} paused on your ${e.after} plan`,
        paragraphs: [
          paused.map((u) => CAUSES.accountPaused(u)).join(" "),
          `Your ${e.after} plan includes fewer Instagram accounts than you have connected. Nothing already in your Drive is touched.`,
          `${FIXES.chooseAccounts.label}: pick which account to keep in Settings → Connected Accounts, or upgrade to resume them all.`,
        ],
        items: paused.map((u) => `@${u}`),
        action: FIXES.chooseAccounts,
      });
    },
  },
});
