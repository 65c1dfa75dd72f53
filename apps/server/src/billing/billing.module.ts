import type { SubscriptionTier } from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import { logOf, type ModuleBase } from "../area-module.ts";
import type { AuthGuards } from "../auth/index.ts";
import { createHook, type Listen } from "../lib/hooks.ts";
import { createStripeClient } from "../providers/stripe/stripe.client.ts";
import { createBillingRepository, LIVE_STATUSES } from "./billing.repository.ts";
import { registerBillingRoutes } from "./billing.routes.ts";
import { type BillingService, createBillingService } from "./billing.service.ts";
import {
  type BillingWebhookDeps,
  type BillingWebhookService,
  createBillingWebhookService,
} from "./billing-webhook.service.ts";
import { normalizeTier } from "./tier-rules.ts";

/** A Stripe event that concerns a user, once handled (once per event id). */
export type BillingEvent = Parameters<NonNullable<BillingWebhookDeps["onEvent"]>>[0];

/** The billing area: Checkout, the portal, the plan, Stripe's webhooks. */
export interface BillingModule {
  billing: BillingService;
  billingWebhooks: BillingWebhookService;
  /** What areas built later are told of a plan change (their modules add a listener). */
  events: {
    /** The posts beyond the new plan's post limit are to be marked (and those within cleared). */
    postLimitChanged: Listen<[userId: string, tier: SubscriptionTier]>;
    /** The tier changed: start what the new plan unlocks. */
    planChanged: Listen<[userId: string, tier: SubscriptionTier, before: SubscriptionTier]>;
    /** A handled event of a user (a failed payment, a plan change). Listeners must not throw. */
    event: Listen<[event: BillingEvent]>;
  };
  /**
   * The user's live subscription when Stripe could not charge it and retries (past due): its
   * tier, since when, and until when the plan runs; null otherwise (the health state's plan).
   */
  pastDue(userId: string): Promise<PastDue | null>;
  routes(app: FastifyInstance, guards: AuthGuards): Promise<void>;
}

export interface PastDue {
  tier: SubscriptionTier;
  since: Date;
  periodEnd: Date | null;
}

export function createBillingModule(
  deps: ModuleBase & {
    /** The connections area's: pauses (or resumes) accounts beyond the plan's account limit. */
    applyAccountLimit(userId: string, limit: number): Promise<number>;
  },
): BillingModule {
  const settings = deps.config.billing;
  const stripe = settings ? createStripeClient(settings) : null;
  const repo = createBillingRepository(deps.db);
  const postLimitChanged = createHook<[string, SubscriptionTier]>();
  const planChanged = createHook<[string, SubscriptionTier, SubscriptionTier]>();
  const event = createHook<[BillingEvent]>();
  const billing = createBillingService({
    repo,
    stripe,
    settings,
    appUrl: deps.config.appUrl,
    ...logOf(deps),
  });
  const billingWebhooks = createBillingWebhookService({
    repo,
    stripe,
    settings,
    clock: deps.clock,
    applyAccountLimit: deps.applyAccountLimit,
    applyPostLimit: postLimitChanged,
    onPlanChanged: planChanged,
    onEvent: event,
    ...logOf(deps),
  });
  return {
    billing,
    billingWebhooks,
    events: { postLimitChanged, planChanged, event },
    async pastDue(userId) {
      const live = (await repo.subscriptionsOf(userId)).find((x) =>
        (LIVE_STATUSES as readonly string[]).includes(x.status),
      );
      if (live?.status !== "past_due") return null;
      return {
        tier: normalizeTier(live.tier),
        since: new Date(live.updated_at),
        periodEnd: live.current_period_end ? new Date(live.current_period_end) : null,
      };
    },
    routes: (app, guards) => registerBillingRoutes(app, { billing, billingWebhooks, guards }),
  };
}
