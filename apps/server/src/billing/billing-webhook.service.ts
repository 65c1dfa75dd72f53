import type { SubscriptionTier } from "@keepsake/contracts";
import { z } from "zod";
import type { BillingSettings } from "../config.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import type { ServiceLog } from "../lib/log.ts";
import type { StripeClient, StripeSubscriptionState } from "../providers/stripe/stripe.client.ts";
import { type BillingRepository, LIVE_STATUSES } from "./billing.repository.ts";
import { BillingBusyError, createBillingClaims } from "./billing-claims.ts";
import { priceInfo } from "./plans.ts";
import { accountLimit, normalizeTier } from "./tier-rules.ts";

/** What a verified body must be to be handled: a signed `{}` or `[]` is not an event. */
const stripeEvent = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

export interface BillingWebhookDeps {
  repo: BillingRepository;
  stripe: StripeClient | null;
  settings: BillingSettings | null;
  clock: Clock;
  /** Pauses (or resumes) the user's accounts beyond the plan's account limit. */
  applyAccountLimit(userId: string, limit: number): Promise<number>;
  /** Marks the posts beyond the plan's post limit (and clears the marks within it). */
  applyPostLimit?(userId: string, tier: SubscriptionTier): Promise<void>;
  /** After the tier changed: starts what the new plan unlocks (syncs, backups). */
  onPlanChanged?(userId: string, tier: SubscriptionTier, before: SubscriptionTier): Promise<void>;
  /**
   * After an event that concerns a user was handled (alerts: a failed payment, a plan change):
   * once per Stripe event id. Must not throw.
   */
  onEvent?(event: {
    userId: string;
    eventId: string;
    type: string;
    before: SubscriptionTier;
    after: SubscriptionTier;
    periodEnd: Date | null;
  }): Promise<void>;
  log?: ServiceLog;
}

/** Events that can change a plan; anything else is recorded and ignored. */
const HANDLED = new Set([
  "checkout.session.completed",
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "invoice.paid",
  "invoice.payment_failed",
]);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface EventRefs {
  subscriptionId: string | null;
  customerId: string | null;
  /** `client_reference_id` of a completed checkout: our user id. */
  userId: string | null;
}

const idOf = (v: unknown): string | null =>
  typeof v === "string" ? v : v && typeof v === "object" && "id" in v ? String(v.id) : null;

function refsOf(type: string, object: Record<string, unknown>): EventRefs {
  if (type === "checkout.session.completed") {
    return {
      subscriptionId: idOf(object.subscription),
      customerId: idOf(object.customer),
      userId: typeof object.client_reference_id === "string" ? object.client_reference_id : null,
    };
  }
  if (type.startsWith("customer.subscription.")) {
    return { subscriptionId: idOf(object.id), customerId: idOf(object.customer), userId: null };
  }
  // Invoices: current API versions put the subscription under parent.subscription_details.
  const parent = object.parent as { subscription_details?: { subscription?: unknown } } | null;
  return {
    subscriptionId: idOf(parent?.subscription_details?.subscription ?? object.subscription),
    customerId: idOf(object.customer),
    userId: null,
  };
}

/** When another change of the user's billing holds their claim too long: Stripe delivers again. */
const BUSY = "Another billing change of this customer is in progress; deliver the event again.";

/**
 * Stripe webhooks: the only way a tier changes. Each event id is processed once; the plan is
 * derived from the subscription as Stripe holds it now, read back while the delivery holds the
 * user's billing claim (`billing-claims.ts`: one change of a user at a time, no database
 * transaction open while Stripe answers), so repeated, concurrent and out-of-order deliveries
 * end in the same state.
 */
export function createBillingWebhookService(deps: BillingWebhookDeps) {
  const { repo, clock, log } = deps;
  const claims = createBillingClaims(repo);

  function tierOf(settings: BillingSettings, sub: StripeSubscriptionState): SubscriptionTier {
    return (sub.priceId && priceInfo(settings, sub.priceId)?.tier) || normalizeTier(sub.priceTier);
  }

  /**
   * The plan's limits on accounts and posts, at once. Deliveries of one user's events can
   * finish in any order, so this applies the tier as stored, then reads it again: a delivery
   * that applied a tier another one has replaced meanwhile applies the stored one again.
   */
  async function applyLimits(userId: string, tier: SubscriptionTier) {
    let applying = tier;
    for (let round = 0; round < 10; round++) {
      await deps.applyAccountLimit(userId, accountLimit(applying));
      await deps.applyPostLimit?.(userId, applying);
      const stored = normalizeTier((await repo.user(userId))?.subscription_tier);
      if (stored === applying) return;
      applying = stored;
    }
  }

  function rowOf(settings: BillingSettings, userId: string, sub: StripeSubscriptionState) {
    return {
      id: sub.id,
      user_id: userId,
      customer_id: sub.customerId,
      price_id: sub.priceId,
      tier: tierOf(settings, sub),
      status: sub.status,
      amount_cents: sub.unitAmountCents,
      billing_interval: sub.interval,
      current_period_start: sub.currentPeriodStart,
      current_period_end: sub.currentPeriodEnd,
      cancel_at_period_end: sub.cancelAtPeriodEnd,
      stripe_created_at: sub.created,
    };
  }

  /**
   * The customer's live subscriptions at Stripe beyond the newest one (the last one paid
   * stays; ties by id, so concurrent deliveries pick the same one), each with the one kept.
   */
  async function supersededAtStripe(customerId: string) {
    const stripe = deps.stripe as StripeClient;
    const live = (await stripe.openSubscriptions(customerId))
      .filter((s) => (LIVE_STATUSES as readonly string[]).includes(s.status))
      .sort((a, b) => b.created.getTime() - a.created.getTime() || (a.id < b.id ? 1 : -1));
    const [keep, ...older] = live;
    return keep ? older.map((sub) => ({ sub, keep })) : [];
  }

  async function userFor(refs: EventRefs): Promise<string | null> {
    // client_reference_id is whatever the session carried: only one of our user ids counts.
    if (
      refs.userId &&
      refs.customerId &&
      UUID.test(refs.userId) &&
      (await repo.user(refs.userId))
    ) {
      return repo.saveCustomer(refs.userId, refs.customerId).then(() => refs.userId);
    }
    if (refs.customerId) return (await repo.userOfCustomer(refs.customerId)) ?? null;
    return null;
  }

  return {
    async handle(rawBody: Buffer, signature: string | undefined) {
      const stripe = deps.stripe;
      const settings = deps.settings;
      if (!stripe || !settings)
        throw new AppError("unavailable", "Billing is not configured on this server.");
      if (!signature) throw new AppError("bad_request", "Missing Stripe-Signature header");
      let event: { id: string; type: string; data: { object: unknown } };
      try {
        event = await stripe.verifyEvent(rawBody, signature, settings.webhookSecret);
      } catch {
        throw new AppError("bad_request", "Invalid Stripe signature");
      }
      if (!stripeEvent.safeParse(event).success) {
        throw new AppError("bad_request", "The webhook body is not a Stripe event");
      }
      if (await repo.eventProcessed(event.id)) return { received: true, duplicate: true };
      if (!HANDLED.has(event.type)) {
        await repo.recordEvent(event.id, event.type, clock.now());
        return { received: true, duplicate: false };
      }
      const refs = refsOf(event.type, event.data.object as Record<string, unknown>);
      const userId = await userFor(refs);
      if (!userId || !refs.subscriptionId) {
        log?.warn({ event: event.id, type: event.type }, "stripe event for no known user");
        await repo.recordEvent(event.id, event.type, clock.now());
        return { received: true, duplicate: false };
      }
      const subscriptionId = refs.subscriptionId;
      const change = await claims
        .hold(userId, BUSY, async (claim) => {
          // Handled by a delivery that held the claim before this one.
          if (await repo.eventProcessed(event.id)) return "duplicate" as const;
          // Stripe first, outside any transaction; a failure answers 500, so Stripe delivers the
          // event again later (nothing is written until every call succeeded).
          const sub = await stripe.retrieveSubscription(subscriptionId);
          // One live subscription per customer: what Stripe holds now, whatever we saw so far.
          const cancelled: { sub: StripeSubscriptionState; reason: string }[] = [];
          for (const old of await supersededAtStripe(sub.customerId)) {
            const reason = `Replaced by ${old.keep.id} (${tierOf(settings, old.keep)}), paid later: Keepsake keeps one subscription per customer. The unused time was credited to the customer's balance.`;
            cancelled.push({ sub: await stripe.cancelWithProration(old.sub.id, reason), reason });
            log?.warn(
              { userId, cancelled: old.sub.id, kept: old.keep.id, event: event.id },
              "cancelled a second live subscription",
            );
          }
          return repo.transaction(async (tx) => {
            const before = await tx.lockUser(userId);
            if (!before) return null;
            // Lapsed and taken over by another delivery (Stripe took longer than the lease):
            // that one wrote what Stripe holds; this one answers 503 and is delivered again.
            if (!(await claim.held(tx))) throw new BillingBusyError(BUSY);
            const now = clock.now();
            await tx.upsertSubscription(rowOf(settings, userId, sub), now);
            for (const c of cancelled) {
              await tx.upsertSubscription(rowOf(settings, userId, c.sub), now);
              await tx.setCancelReason(c.sub.id, c.reason, now);
            }
            const live = (await tx.subscriptionsOf(userId)).find((s) =>
              (LIVE_STATUSES as readonly string[]).includes(s.status),
            );
            const effective = live ? normalizeTier(live.tier) : "free";
            await tx.setTier(userId, effective, now);
            await tx.recordEvent(event.id, event.type, now);
            return {
              before: normalizeTier(before),
              after: effective,
              periodEnd: live?.current_period_end ? new Date(live.current_period_end) : null,
            };
          });
        })
        .catch((err) => {
          // The user was deleted meanwhile: nothing to change.
          if (err instanceof AppError && err.kind === "not_found") return null;
          throw err;
        });
      if (change === "duplicate") return { received: true, duplicate: true };
      if (change) {
        await applyLimits(userId, change.after);
        if (change.after !== change.before) {
          await deps.onPlanChanged?.(userId, change.after, change.before);
        }
        await deps.onEvent?.({
          userId,
          eventId: event.id,
          type: event.type,
          before: change.before,
          after: change.after,
          periodEnd: change.periodEnd,
        });
      }
      return { received: true, duplicate: false };
    },
  };
}

export type BillingWebhookService = ReturnType<typeof createBillingWebhookService>;
