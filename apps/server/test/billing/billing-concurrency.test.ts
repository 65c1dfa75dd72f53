import { SANDBOX_PRICES } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxEvent, stripeEnv } from "../support/billing.ts";
import { planTransitions } from "../support/plan-transitions.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

/**
 * Stripe retries and sends events in parallel: the same event delivered several times at
 * once, and different events of several plan changes at once, end in the state Stripe holds.
 */

let t: SandboxedApp;
let p: ReturnType<typeof planTransitions>;

beforeAll(async () => {
  t = await createSandboxedApp(stripeEnv);
  p = planTransitions(t);
});
afterAll(async () => {
  await t?.close();
});

describe("concurrent deliveries end in one consistent state", () => {
  const parallel = (events: SandboxEvent[], times: number) =>
    Promise.all(
      Array.from({ length: times }, () => events)
        .flat()
        .map(async (e) => {
          const res = await p.b.deliver(e);
          expect(res.status, JSON.stringify(res.body)).toBe(200);
        }),
    );

  const processed = async (events: SandboxEvent[]) =>
    (
      await t.ctx.db
        .selectFrom("stripe_events")
        .select("id")
        .where(
          "id",
          "in",
          events.map((e) => e.id),
        )
        .execute()
    ).length;

  it("the same events, each delivered three times at once", async () => {
    const s = await p.subject(2, "active");
    await p.toPlan(s, "pro");
    const events = await p.b.newEvents();
    await parallel(events, 3);
    expect(await processed(events)).toBe(events.length);
    await p.expectPlan(s, "pro", "active");
  });

  it("different events of several plan changes, all at once and twice each", async () => {
    const s = await p.subject(5, "active");
    await p.toPlan(s, "pro");
    await p.toPlan(s, "premium");
    await p.pastDue(s);
    const events = await p.b.newEvents();
    await parallel(events, 2);
    await p.expectPlan(s, "premium", "past_due");
    await p.toPlan(s, "free");
    await p.toPlan(s, "agency");
    const more = await p.b.newEvents();
    await parallel([...more].reverse(), 2);
    await p.expectPlan(s, "agency", "active");
  });

  it("two paid Checkouts whose webhooks all come at once: one subscription stays", async () => {
    const s = await p.subject(2, "active");
    await p.toPlan(s, "free");
    await p.deliverStep();
    await p.expectPlan(s, "free", "free");
    const other = await p.b.stripe.checkout.sessions.create({
      mode: "subscription",
      customer: s.customerId,
      client_reference_id: s.userId,
      line_items: [{ price: SANDBOX_PRICES.premium.monthly, quantity: 1 }],
      success_url: `${t.ctx.config.appUrl}/billing/return`,
      subscription_data: { metadata: { user_id: s.userId } },
    });
    await p.control(`/stripe/checkout/${other.id}/complete`, {});
    await p.control("/clock", { advance_seconds: 60 });
    // Stripe's word counts: the user already pays, so Checkout sends them to the portal.
    const portal = await t.call("POST", "/api/subscriptions/checkout", {
      token: s.token,
      body: {
        price_id: SANDBOX_PRICES.pro.monthly,
        success_url: `${t.ctx.config.appUrl}/billing/return`,
        cancel_url: `${t.ctx.config.appUrl}/pricing`,
      },
    });
    expect(portal.body.kind).toBe("portal");
    const second = await p.b.stripe.checkout.sessions.create({
      mode: "subscription",
      customer: s.customerId,
      client_reference_id: s.userId,
      line_items: [{ price: SANDBOX_PRICES.pro.monthly, quantity: 1 }],
      success_url: `${t.ctx.config.appUrl}/billing/return`,
      subscription_data: { metadata: { user_id: s.userId } },
    });
    await p.control(`/stripe/checkout/${second.id}/complete`, {});
    const events = await p.b.newEvents();
    await parallel(events, 2);
    const subs = await p.b.stripe.subscriptions.list({ customer: s.customerId, status: "all" });
    const live = subs.data.filter((x) => x.status === "active");
    expect(live.map((x) => x.items.data[0]!.price.id)).toEqual([SANDBOX_PRICES.pro.monthly]);
    await parallel(await p.b.newEvents(), 2);
    await p.expectPlan(s, "pro", "active");
  });
});
