import { DEMO_IG, SANDBOX_CREDENTIALS, SANDBOX_PRICES } from "@keepsake/sandbox";
import Stripe from "stripe";
import type { SandboxedApp } from "./sandbox.ts";

/** STRIPE_* variables that point Keepsake's billing at a test's sandbox (the live-mode path). */
export function stripeEnv(sandboxUrl: string): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: SANDBOX_CREDENTIALS.stripe.secretKey,
    STRIPE_WEBHOOK_SECRET: SANDBOX_CREDENTIALS.stripe.webhookSecret,
    STRIPE_PRICE_PREMIUM_MONTHLY: SANDBOX_PRICES.premium.monthly,
    STRIPE_PRICE_PREMIUM_ANNUAL: SANDBOX_PRICES.premium.annual,
    STRIPE_PRICE_PRO_MONTHLY: SANDBOX_PRICES.pro.monthly,
    STRIPE_PRICE_PRO_ANNUAL: SANDBOX_PRICES.pro.annual,
    STRIPE_PRICE_AGENCY_MONTHLY: SANDBOX_PRICES.agency.monthly,
    STRIPE_PRICE_AGENCY_ANNUAL: SANDBOX_PRICES.agency.annual,
    STRIPE_API_URL: sandboxUrl,
  };
}

export interface SandboxEvent {
  id: string;
  type: string;
  data: { object: Record<string, unknown> };
}

/**
 * Stripe as a test sees it: checkouts paid on the sandbox's hosted page, and the sandbox's
 * events handed to Keepsake's webhook by the test (signed as Stripe signs them), so a test
 * chooses the order and the repeats.
 */
export function billingHelpers(t: SandboxedApp) {
  const origin = new URL(t.sandbox.url);
  const stripe = new Stripe(SANDBOX_CREDENTIALS.stripe.secretKey, {
    host: origin.hostname,
    port: origin.port,
    protocol: "http",
    telemetry: false,
  });
  let seen = 0;

  const sign = (payload: string, opts: { secret?: string; timestamp?: number } = {}) =>
    stripe.webhooks.generateTestHeaderString({
      payload,
      secret: opts.secret ?? SANDBOX_CREDENTIALS.stripe.webhookSecret,
      ...(opts.timestamp !== undefined ? { timestamp: opts.timestamp } : {}),
    });

  return {
    stripe,
    sign,

    /** Events the sandbox emitted since the last call, oldest first. */
    async newEvents(): Promise<SandboxEvent[]> {
      const res = await fetch(`${t.sandbox.url}/_control/stripe/events`);
      const { events } = (await res.json()) as { events: { id: string }[] };
      const fresh = events.slice(seen);
      seen = events.length;
      const out: SandboxEvent[] = [];
      for (const e of fresh) out.push((await stripe.events.retrieve(e.id)) as never);
      return out;
    },

    /** Posts one event to the webhook with a valid signature (or the given header). */
    async deliver(event: SandboxEvent, header?: string) {
      const payload = JSON.stringify(event);
      return t.call("POST", "/api/webhooks/stripe", {
        body: payload,
        headers: {
          "content-type": "application/json",
          ...(header === "" ? {} : { "stripe-signature": header ?? sign(payload) }),
        },
      });
    },

    async deliverAll(events: SandboxEvent[]) {
      for (const e of events) {
        const res = await this.deliver(e);
        if (res.status !== 200) throw new Error(`webhook ${e.type}: ${JSON.stringify(res.body)}`);
      }
    },

    /** POST /api/subscriptions/checkout, then pays on the sandbox's hosted checkout page. */
    async checkout(token: string, priceId: string, card = "4242 4242 4242 4242") {
      const res = await t.call("POST", "/api/subscriptions/checkout", {
        token,
        body: {
          price_id: priceId,
          success_url: `${t.ctx.config.appUrl}/billing/return?tier=pro`,
          cancel_url: `${t.ctx.config.appUrl}/pricing`,
        },
      });
      if (res.status !== 200) throw new Error(`checkout: ${JSON.stringify(res.body)}`);
      const page = await fetch(res.body.checkout_url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ email: "", card, exp: "12 / 34", cvc: "123" }).toString(),
        redirect: "manual",
      });
      return { url: res.body.checkout_url as string, location: page.headers.get("location") };
    },

    async subscriptionOf(customerId: string) {
      const list = await stripe.subscriptions.list({ customer: customerId, status: "all" });
      return list.data[0];
    },

    /** Connects one more Instagram account to an existing user. */
    async connectInstagram(token: string, account: string = DEMO_IG.creator.id) {
      const ig = await t.call("GET", "/api/oauth/instagram/login?account_type=business", {
        token,
      });
      if (ig.status !== 200) return ig;
      const callback = await t.consent(ig.body.auth_url, { decision: "allow", account });
      return t.call("GET", `${callback.pathname}${callback.search}`);
    },
  };
}
