import { SANDBOX_PRICES } from "@keepsake/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createBillingRepository } from "../../src/billing/billing.repository.ts";
import { BillingBusyError, createBillingClaims } from "../../src/billing/billing-claims.ts";
import { billingHelpers, stripeEnv } from "../support/billing.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";
import { until } from "../support/wait.ts";

/**
 * Checkout and the Stripe webhook hold no database transaction while Stripe answers: with the
 * sandbox's Stripe holding a call for seconds, another request that writes the same user's row
 * completes meanwhile (before, it waited for the row lock — on the embedded database, for the
 * one session — until Stripe answered).
 */

let t: SandboxedApp;
let b: ReturnType<typeof billingHelpers>;
const HOLD_MS = 5000;
/**
 * The other request must finish well within the hold: before, it waited for the commit, which
 * comes only after the sandbox answered (at least HOLD_MS after the call arrived).
 */
const WELL_WITHIN = HOLD_MS / 2;

beforeAll(async () => {
  t = await createSandboxedApp(stripeEnv);
  b = billingHelpers(t);
});
afterAll(async () => {
  await t?.close();
});

const control = async (path: string, body: unknown) => {
  const res = await fetch(`${t.sandbox.url}/_control${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
};
const slowed: string[] = [];
const slow = async (endpoint: string, ms: number) => {
  slowed.push(endpoint);
  await control("/latency", { endpoint, ms });
};
afterEach(async () => {
  for (const endpoint of slowed.splice(0)) await control("/latency", { endpoint, ms: 0 });
});

const callsTo = async (endpoint: string): Promise<number> => {
  const res = await fetch(`${t.sandbox.url}/_control/calls`);
  const { calls } = (await res.json()) as { calls: Record<string, number> };
  return calls[endpoint] ?? 0;
};

const checkoutBody = (price: string) => ({
  price_id: price,
  success_url: `${t.ctx.config.appUrl}/billing/return`,
  cancel_url: `${t.ctx.config.appUrl}/pricing`,
});

/**
 * Starts `request`, waits until the sandbox holds its call to `endpoint` (slowed to HOLD_MS),
 * then runs `meanwhile`: answers both results and whether `request` was still waiting on
 * Stripe when `meanwhile` finished.
 */
async function whileStripeHolds<A, B>(
  endpoint: string,
  request: () => Promise<A>,
  meanwhile: () => Promise<B>,
) {
  const before = await callsTo(endpoint);
  await slow(endpoint, HOLD_MS);
  let settled = false;
  const pending = request().finally(() => {
    settled = true;
  });
  await until(
    () => callsTo(endpoint),
    (n) => n > before,
    HOLD_MS,
  );
  const started = Date.now();
  const other = await meanwhile();
  const stillHeld = !settled;
  const took = Date.now() - started;
  return { result: await pending, other, stillHeld, took };
}

const rename = (token: string, name: string) =>
  t.call("PATCH", "/api/auth/me", { token, body: { full_name: name } });

describe("no transaction is open while Stripe answers", () => {
  it("Checkout: the user's row is free while Stripe creates the session", async () => {
    const u = await t.signUp();
    const run = await whileStripeHolds(
      "stripe.checkout.sessions.create",
      () =>
        t.call("POST", "/api/subscriptions/checkout", {
          token: u.token,
          body: checkoutBody(SANDBOX_PRICES.pro.monthly),
        }),
      () => rename(u.token, "Renamed During Checkout"),
    );
    expect(run.other.status).toBe(200);
    expect(run.other.body.full_name).toBe("Renamed During Checkout");
    expect(run.stillHeld).toBe(true);
    expect(run.took).toBeLessThan(WELL_WITHIN);
    expect(run.result.status).toBe(200);
    expect(run.result.body.kind).toBe("checkout");
  });

  it("the webhook: the user's row is free while Stripe answers for the subscription", async () => {
    const u = await t.signUp();
    await b.newEvents();
    const paid = await b.checkout(u.token, SANDBOX_PRICES.premium.monthly);
    expect(paid.location).toContain("/billing/return");
    const events = await b.newEvents();
    const completed = events.find((e) => e.type === "checkout.session.completed");
    expect(completed).toBeDefined();
    const run = await whileStripeHolds(
      "stripe.subscriptions.retrieve",
      () => b.deliver(completed as NonNullable<typeof completed>),
      () => rename(u.token, "Renamed During Webhook"),
    );
    expect(run.other.status).toBe(200);
    expect(run.stillHeld).toBe(true);
    expect(run.took).toBeLessThan(WELL_WITHIN);
    expect(run.result.status).toBe(200);
    expect(run.result.body).toEqual({ received: true, duplicate: false });
    const row = await t.ctx.db
      .selectFrom("users")
      .select(["subscription_tier", "full_name"])
      .where("id", "=", u.user.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ subscription_tier: "premium", full_name: "Renamed During Webhook" });
  });
});

describe("parallel Checkout clicks of one user", () => {
  it("make one Stripe customer and leave one Checkout that can be paid", async () => {
    const u = await t.signUp();
    // Both clicks arrive while the first one's customer is still being created.
    await slow("stripe.customers.create", 1000);
    const [first, second] = await Promise.all(
      [SANDBOX_PRICES.premium.monthly, SANDBOX_PRICES.pro.monthly].map((price) =>
        t.call("POST", "/api/subscriptions/checkout", {
          token: u.token,
          body: checkoutBody(price),
        }),
      ),
    );
    expect([first?.status, second?.status]).toEqual([200, 200]);
    expect([first?.body.kind, second?.body.kind]).toEqual(["checkout", "checkout"]);
    const customers = await b.stripe.customers.list({ email: u.user.email });
    expect(customers.data).toHaveLength(1);
    const stored = await t.ctx.db
      .selectFrom("stripe_customers")
      .select("customer_id")
      .where("user_id", "=", u.user.id)
      .execute();
    expect(stored).toEqual([{ customer_id: customers.data[0]?.id }]);
    const sessions = await b.stripe.checkout.sessions.list({ customer: customers.data[0]?.id });
    expect(sessions.data.map((s) => s.status).sort()).toEqual(["expired", "open"]);
    // No claim is left behind.
    const claims = await t.ctx.db
      .selectFrom("billing_claims")
      .select("user_id")
      .where("user_id", "=", u.user.id)
      .execute();
    expect(claims).toEqual([]);
  });
});

describe("the billing claim", () => {
  it("lets one change of a user run at a time; a second waits for it", async () => {
    const u = await t.signUp();
    const repo = createBillingRepository(t.ctx.db);
    // The claims' own repository, counting each attempt to claim (the second change's tries
    // show it waiting).
    let tries = 0;
    const claims = createBillingClaims({
      ...repo,
      tryClaim: (...args) => {
        tries += 1;
        return repo.tryClaim(...args);
      },
    });
    const order: string[] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = claims.hold(u.user.id, "busy", async () => {
      order.push("first in");
      await gate;
      order.push("first out");
    });
    await until(
      async () => order.length,
      (n) => n === 1,
      5000,
    );
    const triedBefore = tries;
    const second = claims.hold(u.user.id, "busy", async () => {
      order.push("second in");
    });
    // The second change asked, was refused and asked again: it waits while the first holds.
    await until(
      async () => tries - triedBefore,
      (n) => n >= 3,
      5000,
    );
    expect(order).toEqual(["first in"]);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(["first in", "first out", "second in"]);
  });

  it("a change that waited too long answers 503 with Retry-After (Stripe delivers again)", async () => {
    const u = await t.signUp();
    const repo = createBillingRepository(t.ctx.db);
    const impatient = createBillingClaims(repo, { waitMs: 200 });
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = false;
    const holder = createBillingClaims(repo).hold(u.user.id, "busy", () => {
      holding = true;
      return gate;
    });
    await until(
      async () => holding,
      (h) => h,
      5000,
    );
    const err = await impatient.hold(u.user.id, "still busy", async () => {}).catch((e) => e);
    expect(err).toBeInstanceOf(BillingBusyError);
    expect(err).toMatchObject({
      kind: "unavailable",
      message: "still busy",
      options: { retryAfterSeconds: 5 },
    });
    release();
    await holder;
  });

  it("a lapsed claim is taken over, and its former holder can no longer write", async () => {
    const u = await t.signUp();
    const repo = createBillingRepository(t.ctx.db);
    const short = createBillingClaims(repo, { leaseSeconds: 1 });
    let stillHeld: boolean | null = null;
    let takenOver = () => {};
    const taken = new Promise<void>((resolve) => {
      takenOver = resolve;
    });
    let firstHolds = () => {};
    const holding = new Promise<void>((resolve) => {
      firstHolds = resolve;
    });
    const slowChange = short.hold(u.user.id, "busy", async (claim) => {
      firstHolds();
      await taken;
      stillHeld = await claim.held(repo);
    });
    // Only once the first change holds the claim (its query and the second's go through
    // different connections of the pool, in either order) ...
    await holding;
    // ... the second change asks, and gets the claim once the first one's lease lapses.
    await createBillingClaims(repo, { waitMs: 10_000 }).hold(u.user.id, "busy", async (claim) => {
      expect(await claim.held(repo)).toBe(true);
      takenOver();
      await slowChange;
    });
    expect(stillHeld).toBe(false);
  });

  it("a user who does not exist is not found", async () => {
    const claims = createBillingClaims(createBillingRepository(t.ctx.db));
    await expect(
      claims.hold("00000000-0000-4000-8000-000000000000", "busy", async () => {}),
    ).rejects.toMatchObject({ kind: "not_found" });
  });
});
