import { SANDBOX_CREDENTIALS, SANDBOX_PRICES } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingHelpers, stripeEnv } from "../support/billing.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

let t: SandboxedApp;
let b: ReturnType<typeof billingHelpers>;

beforeAll(async () => {
  // Live-mode configuration (STRIPE_* variables) aimed at the sandbox's Stripe.
  t = await createSandboxedApp(stripeEnv);
  b = billingHelpers(t);
});
afterAll(async () => {
  await t?.close();
});

const tierOf = async (userId: string) =>
  (
    await t.ctx.db
      .selectFrom("users")
      .select("subscription_tier")
      .where("id", "=", userId)
      .executeTakeFirstOrThrow()
  ).subscription_tier;

const eventCount = async () =>
  Number(
    (
      await t.ctx.db
        .selectFrom("stripe_events")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** A user who paid for Pro on the hosted page; the sandbox's events not yet delivered. */
async function paidUser(price: string = SANDBOX_PRICES.pro.monthly) {
  const u = await t.signUp();
  await b.newEvents();
  const paid = await b.checkout(u.token, price);
  expect(paid.location).toContain("/billing/return");
  return { ...u, events: await b.newEvents() };
}

describe("plans and the current subscription", () => {
  it("lists the four plans with prices, limits and Stripe price ids", async () => {
    const res = await t.call("GET", "/api/subscriptions/plans");
    expect(res.status).toBe(200);
    const byTier = Object.fromEntries(res.body.plans.map((p: { tier: string }) => [p.tier, p]));
    expect(Object.keys(byTier)).toEqual(["free", "premium", "pro", "agency"]);
    expect(byTier.free).toMatchObject({ monthly_price: 0, annual_price: 0, account_limit: 1 });
    expect(byTier.premium).toMatchObject({
      monthly_price: 9.99,
      annual_price: 99.99,
      post_limit: 5000,
      automatic_backups: true,
      stripe_price_ids: SANDBOX_PRICES.premium,
    });
    expect(byTier.pro).toMatchObject({ monthly_price: 24.99, account_limit: 3, post_limit: null });
    expect(byTier.agency).toMatchObject({ annual_price: 549.99, account_limit: 10 });
    expect(byTier.free.automatic_backups).toBe(false);
  });

  it("answers free with no period for a new user", async () => {
    const u = await t.signUp();
    const res = await t.call("GET", "/api/subscriptions/current", { token: u.token });
    expect(res.body).toMatchObject({
      tier: "free",
      status: "free",
      amount: 0,
      current_period_start: null,
      current_period_end: null,
      cancel_at_period_end: false,
      has_billing_account: false,
    });
  });
});

describe("checkout and the portal", () => {
  it("refuses unknown prices and foreign return URLs, and a portal without a customer", async () => {
    const u = await t.signUp();
    const body = {
      price_id: SANDBOX_PRICES.pro.monthly,
      success_url: `${t.ctx.config.appUrl}/billing/return`,
      cancel_url: `${t.ctx.config.appUrl}/pricing`,
    };
    const post = (b2: object) =>
      t.call("POST", "/api/subscriptions/checkout", { token: u.token, body: b2 });
    expect((await post({ ...body, price_id: "price_nope" })).status).toBe(422);
    const foreign = await post({ ...body, success_url: "https://evil.example/back" });
    expect(foreign.status).toBe(422);
    expect(foreign.body.detail).toContain("must point back to Keepsake");
    expect((await post({ ...body, cancel_url: "javascript:alert(1)" })).status).toBe(422);
    expect((await post({ price_id: body.price_id })).status).toBe(422);
    const portal = await t.call("POST", "/api/subscriptions/portal", { token: u.token });
    expect(portal.status).toBe(400);
    expect(portal.body.detail).toContain("no billing account");
    expect((await t.call("POST", "/api/subscriptions/checkout", { body })).status).toBe(401);
  });

  it("creates one customer per user and sends a subscriber to the portal", async () => {
    const u = await paidUser();
    const customer = await t.ctx.db
      .selectFrom("stripe_customers")
      .selectAll()
      .where("user_id", "=", u.user.id)
      .executeTakeFirstOrThrow();
    const session = u.events.find((e) => e.type === "checkout.session.completed");
    expect(session?.data.object).toMatchObject({
      client_reference_id: u.user.id,
      customer: customer.customer_id,
      mode: "subscription",
    });
    // Paying changes nothing by itself: only the verified webhook does.
    expect(await tierOf(u.user.id)).toBe("free");
    await b.deliverAll(u.events);
    expect(await tierOf(u.user.id)).toBe("pro");

    const again = await t.call("POST", "/api/subscriptions/checkout", {
      token: u.token,
      body: {
        price_id: SANDBOX_PRICES.agency.monthly,
        success_url: `${t.ctx.config.appUrl}/billing/return`,
        cancel_url: `${t.ctx.config.appUrl}/pricing`,
      },
    });
    expect(again.body.kind).toBe("portal");
    expect(again.body.checkout_url).toContain("/billing.stripe.com/p/session/");
    const portal = await t.call("POST", "/api/subscriptions/portal", { token: u.token });
    expect(portal.body.portal_url).toContain("/billing.stripe.com/p/session/");
    const customers = await b.stripe.customers.list({ email: u.user.email });
    expect(customers.data).toHaveLength(1);
  });

  it("a subscriber's upgrade carries the chosen plan and billing interval into the portal", async () => {
    const u = await paidUser(SANDBOX_PRICES.pro.monthly);
    await b.deliverAll(u.events);
    const res = await t.call("POST", "/api/subscriptions/checkout", {
      token: u.token,
      body: {
        price_id: SANDBOX_PRICES.agency.annual,
        success_url: `${t.ctx.config.appUrl}/billing/return?tier=agency`,
        cancel_url: `${t.ctx.config.appUrl}/pricing`,
      },
    });
    expect(res.body.kind).toBe("portal");
    // The portal opens on the confirmation of Agency, billed annually.
    const page = await (await fetch(res.body.checkout_url)).text();
    expect(page).toContain("Confirm your new plan");
    expect(page).toContain("Keepsake Agency annual");
    const customer = (await b.stripe.customers.list({ email: u.user.email })).data[0]!;
    const sub = (await b.subscriptionOf(customer.id))!;
    const confirmed = await fetch(res.body.checkout_url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ subscription: sub.id, action: "confirm_flow" }).toString(),
      redirect: "manual",
    });
    expect(confirmed.headers.get("location")).toBe(
      `${t.ctx.config.appUrl}/billing/return?tier=agency`,
    );
    await b.deliverAll(await b.newEvents());
    const current = await t.call("GET", "/api/subscriptions/current", { token: u.token });
    expect(current.body).toMatchObject({ tier: "agency", interval: "year", amount: 549.99 });
    // Choosing the plan one already has opens the portal's start page.
    const same = await t.call("POST", "/api/subscriptions/checkout", {
      token: u.token,
      body: {
        price_id: SANDBOX_PRICES.agency.annual,
        success_url: `${t.ctx.config.appUrl}/billing/return?tier=agency`,
        cancel_url: `${t.ctx.config.appUrl}/pricing`,
      },
    });
    expect(await (await fetch(same.body.checkout_url)).text()).not.toContain(
      "Confirm your new plan",
    );
  });

  it("a declined card leaves the user on free", async () => {
    const u = await t.signUp();
    const paid = await b.checkout(u.token, SANDBOX_PRICES.pro.monthly, "4000 0000 0000 0002");
    expect(decodeURIComponent(paid.location ?? "")).toContain("Your card was declined.");
    await b.deliverAll(await b.newEvents());
    expect(await tierOf(u.user.id)).toBe("free");
  });
});

describe("the Stripe webhook", () => {
  it("verifies the signature on the raw body: tampered, stale, wrong secret or missing → 400", async () => {
    const u = await paidUser();
    const event = u.events.find((e) => e.type === "customer.subscription.created")!;
    const payload = JSON.stringify(event);
    const before = await eventCount();
    const tampered = await t.call("POST", "/api/webhooks/stripe", {
      body: payload.replace(u.user.id, "00000000-0000-0000-0000-000000000000").replace("{", "{ "),
      headers: { "content-type": "application/json", "stripe-signature": b.sign(payload) },
    });
    const stale = await b.deliver(
      event,
      b.sign(payload, { timestamp: Math.floor(Date.now() / 1000) - 600 }),
    );
    const wrong = await b.deliver(event, b.sign(payload, { secret: "whsec_wrong" }));
    const missing = await b.deliver(event, "");
    for (const res of [tampered, stale, wrong, missing]) {
      expect(res.status).toBe(400);
      expect(typeof res.body.detail).toBe("string");
    }
    expect(missing.body.detail).toBe("Missing Stripe-Signature header");
    expect(await eventCount()).toBe(before);
    expect(await tierOf(u.user.id)).toBe("free");

    const valid = await b.deliver(event);
    expect(valid.status).toBe(200);
    expect(await tierOf(u.user.id)).toBe("pro");
  });

  it("answers 400 to a correctly signed body that is not a Stripe event", async () => {
    const before = await eventCount();
    for (const payload of ["{}", "[]", "null", "5", '{"id":"evt_1","type":"x"}', '{"id":7}']) {
      const res = await t.call("POST", "/api/webhooks/stripe", {
        body: payload,
        headers: { "content-type": "application/json", "stripe-signature": b.sign(payload) },
      });
      expect(res.status, payload).toBe(400);
      expect(res.body).toEqual({ detail: "The webhook body is not a Stripe event" });
    }
    expect(await eventCount()).toBe(before);
  });

  it("processes each event id once", async () => {
    const u = await paidUser(SANDBOX_PRICES.premium.annual);
    await b.deliverAll(u.events);
    const before = await eventCount();
    const replay = await b.deliver(u.events[1]!);
    expect(replay.body).toEqual({ received: true, duplicate: true });
    expect(await eventCount()).toBe(before);
    const current = await t.call("GET", "/api/subscriptions/current", { token: u.token });
    expect(current.body).toMatchObject({
      tier: "premium",
      status: "active",
      amount: 99.99,
      interval: "year",
      has_billing_account: true,
    });
    expect(current.body.current_period_end).toMatch(/^\d{4}-/);
  });

  it("ends in the right state whatever the order of delivery", async () => {
    const u = await paidUser();
    const customer = (await b.stripe.customers.list({ email: u.user.email })).data[0]!;
    const sub = (await b.subscriptionOf(customer.id))!;
    await b.stripe.subscriptions.cancel(sub.id);
    const later = await b.newEvents();
    // The deletion arrives first, then the creation events of the same subscription.
    await b.deliverAll([...later, ...[...u.events].reverse()]);
    expect(await tierOf(u.user.id)).toBe("free");
    const current = await t.call("GET", "/api/subscriptions/current", { token: u.token });
    expect(current.body).toMatchObject({ tier: "free", status: "free" });
  });

  it("follows the lifecycle: paid, past due, plan change, cancel at period end, deleted", async () => {
    const u = await paidUser();
    await b.deliverAll(u.events);
    const customer = (await b.stripe.customers.list({ email: u.user.email })).data[0]!;
    const sub = (await b.subscriptionOf(customer.id))!;
    const current = async () =>
      (await t.call("GET", "/api/subscriptions/current", { token: u.token })).body;

    await fetch(`${t.sandbox.url}/_control/stripe/payment_failed`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ subscription: sub.id }),
    });
    const failed = await b.newEvents();
    expect(failed.map((e) => e.type)).toContain("invoice.payment_failed");
    await b.deliver(failed.find((e) => e.type === "invoice.payment_failed")!);
    expect(await current()).toMatchObject({ tier: "pro", status: "past_due" });
    await b.deliverAll(failed);

    await b.stripe.subscriptions.update(sub.id, {
      items: [{ id: sub.items.data[0]!.id, price: SANDBOX_PRICES.agency.monthly }],
    });
    await b.deliverAll(await b.newEvents());
    expect(await current()).toMatchObject({ tier: "agency", amount: 54.99 });

    await b.stripe.subscriptions.update(sub.id, { cancel_at_period_end: true });
    await b.deliverAll(await b.newEvents());
    expect(await current()).toMatchObject({ tier: "agency", cancel_at_period_end: true });

    await b.stripe.subscriptions.cancel(sub.id);
    await b.deliverAll(await b.newEvents());
    expect(await current()).toMatchObject({ tier: "free", status: "free" });
  });

  it("ignores events it does not handle, once", async () => {
    const u = await t.signUp();
    await b.newEvents();
    await b.stripe.customers.create({ email: u.user.email });
    const [created] = await b.newEvents();
    expect(created?.type).toBe("customer.created");
    expect((await b.deliver(created!)).body).toEqual({ received: true, duplicate: false });
    expect((await b.deliver(created!)).body).toEqual({ received: true, duplicate: true });
  });

  it("uses the configured webhook secret", () => {
    expect(t.ctx.config.billing?.webhookSecret).toBe(SANDBOX_CREDENTIALS.stripe.webhookSecret);
  });
});
