import {
  type CheckoutRequest,
  type CheckoutResponse,
  billingMessages as m,
  type Plan,
  type Subscription,
  subscriptionStatus,
} from "@keepsake/contracts";
import type { UserRow } from "../auth/tables.ts";
import type { BillingSettings } from "../config.ts";
import { AppError } from "../lib/errors.ts";
import type { ServiceLog } from "../lib/log.ts";
import { asError } from "../lib/log.ts";
import { CallInTransactionError } from "../lib/transaction-scope.ts";
import type { StripeClient, StripeSubscriptionState } from "../providers/stripe/stripe.client.ts";
import { type BillingRepository, LIVE_STATUSES } from "./billing.repository.ts";
import { createBillingClaims } from "./billing-claims.ts";
import { planCatalog, priceInfo } from "./plans.ts";
import { isPaidTier, normalizeTier } from "./tier-rules.ts";

export interface BillingServiceDeps {
  repo: BillingRepository;
  /** null when billing is not configured. */
  stripe: StripeClient | null;
  settings: BillingSettings | null;
  appUrl: string;
  log?: ServiceLog;
}

type BillingUser = Pick<UserRow, "id" | "email" | "full_name" | "subscription_tier">;

const isLive = (status: string) => (LIVE_STATUSES as readonly string[]).includes(status);

/** A Stripe failure is not the user's fault: say so, keep the details in the log. */
async function stripeCall<T>(log: ServiceLog | undefined, what: string, fn: () => Promise<T>) {
  try {
    return await fn();
  } catch (err) {
    // A programming error, not Stripe's: never dressed up as "not reachable".
    if (err instanceof CallInTransactionError) throw err;
    log?.error({ err: asError(err) }, `stripe ${what} failed`);
    throw new AppError(
      "upstream",
      "The payment provider is not reachable right now. Please try again.",
    );
  }
}

export function createBillingService(deps: BillingServiceDeps) {
  const { repo, log } = deps;
  const claims = createBillingClaims(repo);
  const appOrigin = new URL(deps.appUrl).origin;
  const portalReturnUrl = `${deps.appUrl}/settings?tab=subscription`;

  function configured() {
    if (!deps.stripe || !deps.settings) throw new AppError("unavailable", m.notConfigured);
    return { stripe: deps.stripe, settings: deps.settings };
  }

  function sameOrigin(url: string): boolean {
    try {
      return new URL(url).origin === appOrigin;
    } catch {
      return false;
    }
  }

  /** The customer's live subscription as Stripe sees it now, if any. */
  async function liveAtStripe(customerId: string) {
    const { stripe } = configured();
    const atStripe = await stripeCall(log, "subscriptions list", () =>
      stripe.openSubscriptions(customerId),
    );
    return atStripe.find((s) => isLive(s.status));
  }

  async function liveSubscription(userId: string) {
    return (await repo.subscriptionsOf(userId)).find((s) => isLive(s.status));
  }

  return {
    plans(): Plan[] {
      return planCatalog(deps.settings);
    },

    /** SPEC §3 "Subscription" of the caller. */
    async current(user: BillingUser): Promise<Subscription> {
      const tier = normalizeTier(user.subscription_tier);
      const [live, customer] = await Promise.all([
        liveSubscription(user.id),
        repo.customerOf(user.id),
      ]);
      if (!live) {
        return {
          tier,
          // A paid tier without a Stripe subscription was granted by hand (admin, import).
          status: isPaidTier(tier) ? "active" : "free",
          amount: 0,
          interval: null,
          current_period_start: null,
          current_period_end: null,
          cancel_at_period_end: false,
          has_billing_account: customer !== undefined,
        };
      }
      const status = subscriptionStatus.safeParse(live.status);
      return {
        tier,
        status: status.success ? status.data : "active",
        amount: live.amount_cents / 100,
        interval: live.billing_interval,
        current_period_start: live.current_period_start?.toISOString() ?? null,
        current_period_end: live.current_period_end?.toISOString() ?? null,
        cancel_at_period_end: live.cancel_at_period_end,
        has_billing_account: true,
      };
    },

    async checkout(user: BillingUser, input: CheckoutRequest): Promise<CheckoutResponse> {
      const { stripe, settings } = configured();
      if (!priceInfo(settings, input.price_id)) throw new AppError("invalid", m.unknownPrice);
      if (!sameOrigin(input.success_url) || !sameOrigin(input.cancel_url)) {
        throw new AppError("invalid", m.foreignReturnUrl);
      }
      // One subscription per customer. Checkouts of one user run one at a time (each holds
      // the user's billing claim, never a database transaction, while Stripe answers), and
      // what counts is what Stripe holds, not only what webhooks told us: a subscriber changes
      // plans in the portal, and a new Checkout expires the user's Checkouts still open in
      // other tabs, so only one of them can ever be paid.
      return claims.hold(user.id, m.checkoutBusy, async () => {
        const existing = await repo.customerOf(user.id);
        if (existing) {
          // A subscriber goes to the portal, on the confirmation of the plan and billing
          // interval they chose (or the portal's start page when that is their plan already).
          const toPortal = async (live: StripeSubscriptionState) => {
            const change =
              live.itemId && live.priceId !== input.price_id
                ? {
                    subscriptionId: live.id,
                    itemId: live.itemId,
                    priceId: input.price_id,
                    doneUrl: input.success_url,
                  }
                : undefined;
            const url = await stripeCall(log, "portal", () =>
              stripe.createPortalSession(existing, portalReturnUrl, change),
            );
            return { checkout_url: url, kind: "portal" as const };
          };
          const live = await liveAtStripe(existing);
          if (live) return toPortal(live);
          const open = await stripeCall(log, "checkout list", () =>
            stripe.openCheckoutSessions(existing),
          );
          for (const id of open) {
            const expired = await stripeCall(log, "checkout expire", () =>
              stripe.expireCheckoutSession(id),
            );
            // Paid meanwhile: the user is a subscriber now.
            const paid = expired ? undefined : await liveAtStripe(existing);
            if (paid) return toPortal(paid);
          }
        }
        const customerId =
          existing ??
          (await repo.saveCustomer(
            user.id,
            await stripeCall(log, "customer", () =>
              stripe.createCustomer({ email: user.email, name: user.full_name, userId: user.id }),
            ),
          ));
        const url = await stripeCall(log, "checkout", () =>
          stripe.createCheckoutSession({
            customerId,
            priceId: input.price_id,
            userId: user.id,
            successUrl: input.success_url,
            cancelUrl: input.cancel_url,
          }),
        );
        return { checkout_url: url, kind: "checkout" as const };
      });
    },

    async portal(user: BillingUser): Promise<{ portal_url: string }> {
      const { stripe } = configured();
      const customerId = await repo.customerOf(user.id);
      if (!customerId) throw new AppError("bad_request", m.noBillingAccount);
      const url = await stripeCall(log, "portal", () =>
        stripe.createPortalSession(customerId, portalReturnUrl),
      );
      return { portal_url: url };
    },

    /**
     * Before a user is deleted: cancel every live subscription at Stripe and delete the
     * customer, so nobody is charged for an account that no longer exists. Throws (and so
     * stops the deletion) when Stripe cannot be reached.
     */
    async forgetCustomer(userId: string): Promise<{ cancelled: number; customerDeleted: boolean }> {
      const customerId = await repo.customerOf(userId);
      const live = (await repo.subscriptionsOf(userId)).filter((s) => isLive(s.status));
      if (!customerId && live.length === 0) return { cancelled: 0, customerDeleted: false };
      const { stripe } = configured();
      for (const sub of live) {
        await stripeCall(log, "cancel", () => ignoreMissing(stripe.cancelSubscription(sub.id)));
      }
      if (customerId) {
        await stripeCall(log, "customer delete", () =>
          ignoreMissing(stripe.deleteCustomer(customerId)),
        );
      }
      return { cancelled: live.length, customerDeleted: customerId !== undefined };
    },
  };
}

/** Already gone at Stripe is what we wanted. */
async function ignoreMissing(p: Promise<void>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if ((err as { code?: string }).code === "resource_missing") return;
    throw err;
  }
}

export type BillingService = ReturnType<typeof createBillingService>;
