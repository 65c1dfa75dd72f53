import { SANDBOX_PRICES } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingHelpers, stripeEnv } from "../support/billing.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

// One live subscription per Stripe customer: a second Checkout, a paid one racing another
// (billing.test.ts: plans, Checkout, the portal and the webhook).
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

/** Pays a Checkout Session on the sandbox's hosted page; answers the page's status. */
async function pay(url: string) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email: "", card: "4242 4242 4242 4242" }).toString(),
    redirect: "manual",
  });
  await res.arrayBuffer();
  return res.status;
}

const advanceStripeClock = async (seconds: number) => {
  const res = await fetch(`${t.sandbox.url}/_control/clock`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ advance_seconds: seconds }),
  });
  expect(res.status).toBe(200);
};

const checkoutBody = (price: string) => ({
  price_id: price,
  success_url: `${t.ctx.config.appUrl}/billing/return`,
  cancel_url: `${t.ctx.config.appUrl}/pricing`,
});

describe("one live subscription per customer", () => {
  it("a second Checkout expires the first tab's, which can no longer be paid", async () => {
    const u = await t.signUp();
    const post = (price: string) =>
      t.call("POST", "/api/subscriptions/checkout", { token: u.token, body: checkoutBody(price) });
    const premium = await post(SANDBOX_PRICES.premium.monthly);
    const pro = await post(SANDBOX_PRICES.pro.monthly);
    expect([premium.body.kind, pro.body.kind]).toEqual(["checkout", "checkout"]);
    // The first tab's page refuses the payment; the second tab's goes through.
    expect(await pay(premium.body.checkout_url)).toBe(410);
    expect(await pay(pro.body.checkout_url)).toBe(302);
    const customer = (await b.stripe.customers.list({ email: u.user.email })).data[0]!;
    const sessions = await b.stripe.checkout.sessions.list({ customer: customer.id });
    expect(sessions.data.map((s) => s.status).sort()).toEqual(["complete", "expired"]);
    const subs = await b.stripe.subscriptions.list({ customer: customer.id });
    expect(subs.data).toHaveLength(1);

    // Paid but no webhook delivered yet: Stripe's word counts, the next Checkout is the portal.
    expect(await tierOf(u.user.id)).toBe("free");
    const third = await post(SANDBOX_PRICES.agency.monthly);
    expect(third.body.kind).toBe("portal");
    expect(third.body.checkout_url).toContain("/billing.stripe.com/p/session/");
  });

  // Two Checkouts both paid (sessions the guard above never saw, e.g. opened before it):
  // whichever is paid first and whatever order the webhooks come in, the later one stays.
  const orders = [
    { first: "premium", second: "pro", delivery: "as paid" },
    { first: "premium", second: "pro", delivery: "reversed" },
    { first: "pro", second: "premium", delivery: "as paid" },
    { first: "pro", second: "premium", delivery: "reversed" },
  ] as const;
  it.each(orders)(
    "two completed Checkouts, $first then $second, webhooks $delivery: the older is cancelled and credited",
    async ({ first, second, delivery }) => {
      const u = await t.signUp();
      await b.newEvents();
      const a = await t.call("POST", "/api/subscriptions/checkout", {
        token: u.token,
        body: checkoutBody(SANDBOX_PRICES[first].monthly),
      });
      const customer = (await b.stripe.customers.list({ email: u.user.email })).data[0]!;
      const other = await b.stripe.checkout.sessions.create({
        mode: "subscription",
        customer: customer.id,
        client_reference_id: u.user.id,
        line_items: [{ price: SANDBOX_PRICES[second].monthly, quantity: 1 }],
        success_url: `${t.ctx.config.appUrl}/billing/return`,
        subscription_data: { metadata: { user_id: u.user.id } },
      });
      expect(await pay(a.body.checkout_url)).toBe(302);
      const firstEvents = await b.newEvents();
      await advanceStripeClock(3600);
      expect(await pay(other.url!)).toBe(302);
      const secondEvents = await b.newEvents();
      const events =
        delivery === "as paid"
          ? [...firstEvents, ...secondEvents]
          : [...secondEvents, ...firstEvents];
      await b.deliverAll(events);

      const all = await b.stripe.subscriptions.list({ customer: customer.id, status: "all" });
      const older = all.data.find((s) => s.items.data[0]!.price.id.includes(first))!;
      const newer = all.data.find((s) => s.items.data[0]!.price.id.includes(second))!;
      expect(newer.status).toBe("active");
      expect(older.status).toBe("canceled");
      expect(older.cancellation_details?.comment).toContain(`Replaced by ${newer.id}`);
      expect(all.data.filter((s) => s.status !== "canceled")).toHaveLength(1);
      // The unused time of the older one is credited (Stripe's negative balance).
      const credited = await b.stripe.customers.retrieve(customer.id);
      const olderAmount = older.items.data[0]!.price.unit_amount!;
      expect((credited as { balance: number }).balance).toBeLessThan(0);
      expect((credited as { balance: number }).balance).toBeGreaterThanOrEqual(-olderAmount);

      expect(await tierOf(u.user.id)).toBe(second);
      const rows = await t.ctx.db
        .selectFrom("subscriptions")
        .select(["id", "status", "cancel_reason"])
        .where("user_id", "=", u.user.id)
        .execute();
      expect(rows.find((r) => r.id === older.id)).toMatchObject({ status: "canceled" });
      expect(rows.find((r) => r.id === older.id)?.cancel_reason).toContain(newer.id);
      expect(rows.find((r) => r.id === newer.id)).toMatchObject({ status: "active" });

      // The cancellation's own events and every repeat change nothing more.
      await b.deliverAll(await b.newEvents());
      await Promise.all(events.map((e) => b.deliver(e)));
      expect(await tierOf(u.user.id)).toBe(second);
      const after = await b.stripe.subscriptions.list({ customer: customer.id, status: "all" });
      expect(after.data.map((s) => [s.id, s.status]).sort()).toEqual(
        [
          [older.id, "canceled"],
          [newer.id, "active"],
        ].sort(),
      );
      const current = await t.call("GET", "/api/subscriptions/current", { token: u.token });
      expect(current.body).toMatchObject({ tier: second, status: "active" });
    },
  );
});
