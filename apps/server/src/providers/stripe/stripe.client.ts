import type Stripe from "stripe";
import { assertOutsideTransaction, CallInTransactionError } from "../../lib/transaction-scope.ts";

/** What Keepsake reads from a Stripe subscription, whatever event brought it. */
export interface StripeSubscriptionState {
  id: string;
  customerId: string;
  status: string;
  /** The subscription item that carries the price (one per subscription). */
  itemId: string | null;
  priceId: string | null;
  /** Price metadata `tier`, for prices Keepsake does not know by id. */
  priceTier: string | null;
  unitAmountCents: number;
  interval: "month" | "year" | null;
  /** The `user_id` Keepsake put in the subscription's metadata at checkout. */
  userId: string | null;
  currentPeriodStart: Date | null;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  created: Date;
}

export interface StripeClientSettings {
  secretKey: string;
  /** https://api.stripe.com, or the sandbox's origin. */
  apiUrl: string;
}

const seconds = (s: number | null | undefined) =>
  typeof s === "number" ? new Date(s * 1000) : null;

function toState(sub: Stripe.Subscription): StripeSubscriptionState {
  const item = sub.items.data[0];
  const price = item?.price;
  const interval: string | undefined = price?.recurring?.interval;
  return {
    id: sub.id,
    customerId: typeof sub.customer === "string" ? sub.customer : sub.customer.id,
    status: sub.status,
    itemId: item?.id ?? null,
    priceId: price?.id ?? null,
    priceTier: price?.metadata?.tier ?? null,
    unitAmountCents: price?.unit_amount ?? 0,
    interval: interval === "month" ? "month" : interval === "year" ? "year" : null,
    userId: sub.metadata?.user_id ?? null,
    // Current API versions keep the period on the item.
    currentPeriodStart: seconds(item?.current_period_start),
    currentPeriodEnd: seconds(item?.current_period_end),
    cancelAtPeriodEnd:
      sub.cancel_at_period_end || (sub.cancel_at !== null && sub.status !== "canceled"),
    created: new Date(sub.created * 1000),
  };
}

type StripeHttpClient = ReturnType<typeof Stripe.createNodeHttpClient>;

/**
 * The package's own HTTP client, refusing every request (each page of a list, each retry)
 * made while the caller holds a database transaction (lib/transaction-scope.ts).
 */
export function guardedHttpClient(inner: StripeHttpClient): StripeHttpClient {
  return {
    getClientName: () => inner.getClientName(),
    makeRequest(host, port, path, method, headers, requestData, protocol, timeout) {
      try {
        assertOutsideTransaction(`Stripe ${method} ${path.split("?")[0]}`);
      } catch (err) {
        return Promise.reject(err);
      }
      return inner.makeRequest(host, port, path, method, headers, requestData, protocol, timeout);
    },
  };
}

/**
 * The one module that talks to Stripe (or the sandbox's Stripe) through the official package.
 * The package (about 30 MiB resident) loads on the first call, so a process that never bills
 * (a worker, an idle API) does not carry it. No call runs inside a database transaction: each
 * method refuses at once (CallInTransactionError), and the package's HTTP client refuses too.
 */
export function createStripeClient(settings: StripeClientSettings) {
  const origin = new URL(settings.apiUrl);
  let loaded: Promise<Stripe> | null = null;
  const sdk = () => {
    loaded ??= import("stripe").then(
      ({ default: StripeSdk }) =>
        new StripeSdk(settings.secretKey, {
          host: origin.hostname,
          port: origin.port || (origin.protocol === "https:" ? 443 : 80),
          protocol: origin.protocol === "http:" ? "http" : "https",
          maxNetworkRetries: 2,
          timeout: 20_000,
          telemetry: false,
          httpClient: guardedHttpClient(StripeSdk.createNodeHttpClient()),
        }),
    );
    return loaded;
  };
  const client = (call: string) => {
    assertOutsideTransaction(`Stripe ${call}`);
    return sdk();
  };

  return guardedMethods({
    async createCustomer(input: { email: string; name: string | null; userId: string }) {
      const c = await (await client("customers.create")).customers.create(
        {
          email: input.email,
          ...(input.name ? { name: input.name } : {}),
          metadata: { user_id: input.userId },
        },
        { idempotencyKey: `customer:${input.userId}` },
      );
      return c.id;
    },

    async createCheckoutSession(input: {
      customerId: string;
      priceId: string;
      userId: string;
      successUrl: string;
      cancelUrl: string;
    }): Promise<string> {
      const session = await (await client("checkout.sessions.create")).checkout.sessions.create({
        mode: "subscription",
        customer: input.customerId,
        client_reference_id: input.userId,
        line_items: [{ price: input.priceId, quantity: 1 }],
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
        subscription_data: { metadata: { user_id: input.userId } },
      });
      if (!session.url) throw new Error("Stripe returned a checkout session without a URL");
      return session.url;
    },

    /**
     * A billing portal session; with `change`, it opens on the confirmation of that plan change
     * (Stripe's subscription_update_confirm flow) and comes back to `change.doneUrl` after it.
     */
    async createPortalSession(
      customerId: string,
      returnUrl: string,
      change?: { subscriptionId: string; itemId: string; priceId: string; doneUrl: string },
    ): Promise<string> {
      const session = await (
        await client("billingPortal.sessions.create")
      ).billingPortal.sessions.create({
        customer: customerId,
        return_url: returnUrl,
        ...(change
          ? {
              flow_data: {
                type: "subscription_update_confirm" as const,
                subscription_update_confirm: {
                  subscription: change.subscriptionId,
                  items: [{ id: change.itemId, price: change.priceId, quantity: 1 }],
                },
                after_completion: {
                  type: "redirect" as const,
                  redirect: { return_url: change.doneUrl },
                },
              },
            }
          : {}),
      });
      return session.url;
    },

    async retrieveSubscription(id: string): Promise<StripeSubscriptionState> {
      return toState(await (await client("subscriptions.retrieve")).subscriptions.retrieve(id));
    },

    async cancelSubscription(id: string): Promise<void> {
      await (await client("subscriptions.cancel")).subscriptions.cancel(id);
    },

    /**
     * Cancels a subscription at once, crediting its unused time to the customer's balance
     * (a final invoice now), with `comment` as Stripe's cancellation_details.
     */
    async cancelWithProration(id: string, comment: string): Promise<StripeSubscriptionState> {
      return toState(
        await (await client("subscriptions.cancel")).subscriptions.cancel(id, {
          prorate: true,
          invoice_now: true,
          cancellation_details: { comment },
        }),
      );
    },

    /** The customer's subscriptions that are not canceled (every status Stripe lists by default). */
    async openSubscriptions(customerId: string): Promise<StripeSubscriptionState[]> {
      const out: StripeSubscriptionState[] = [];
      for await (const sub of (await client("subscriptions.list")).subscriptions.list({
        customer: customerId,
        limit: 100,
      })) {
        out.push(toState(sub));
      }
      return out;
    },

    /** Ids of the customer's Checkout Sessions that can still be paid. */
    async openCheckoutSessions(customerId: string): Promise<string[]> {
      const out: string[] = [];
      for await (const session of (await client("checkout.sessions.list")).checkout.sessions.list({
        customer: customerId,
        status: "open",
        limit: 100,
      })) {
        out.push(session.id);
      }
      return out;
    },

    /**
     * Expires an open Checkout Session so it can no longer be paid. False when it is not open
     * any more (paid or expired meanwhile).
     */
    async expireCheckoutSession(id: string): Promise<boolean> {
      const stripe = await client("checkout.sessions.expire");
      try {
        await stripe.checkout.sessions.expire(id);
        return true;
      } catch (err) {
        if ((err as { type?: string }).type !== "StripeInvalidRequestError") throw err;
        const session = await stripe.checkout.sessions.retrieve(id);
        if (session.status === "open") throw err;
        return false;
      }
    },

    async deleteCustomer(id: string): Promise<void> {
      await (await client("customers.del")).customers.del(id);
    },

    /** Verifies `Stripe-Signature` over the raw body; throws when it does not hold. */
    async verifyEvent(rawBody: Buffer, signature: string, secret: string): Promise<Stripe.Event> {
      return (await sdk()).webhooks.constructEvent(rawBody, signature, secret, 300);
    },
  });
}

export type StripeClient = ReturnType<typeof createStripeClient>;

/**
 * A request the HTTP client refused surfaces from the package as a connection error (after its
 * retries): each method answers it as the refusal itself, never as "Stripe is not reachable".
 */
function guardedMethods<T extends Record<string, (...args: never[]) => Promise<unknown>>>(
  methods: T,
): T {
  const unwrap = (err: unknown): never => {
    const detail = (err as { detail?: unknown } | null)?.detail;
    throw detail instanceof CallInTransactionError ? detail : err;
  };
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(methods)) {
    out[name] = (...args: never[]) => fn(...args).catch(unwrap);
  }
  return out as T;
}
