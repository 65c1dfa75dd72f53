import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { SANDBOX_CREDENTIALS as C, SANDBOX_PRICES } from "../src/index.ts";
import { type Harness, harness } from "./helpers.ts";

interface Received {
  body: string;
  signature: string;
}

let h: Harness;
let receiver: Server;
let hookUrl: string;
let received: Received[] = [];
let failNext = 0;
let stripe: Stripe;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (failNext > 0) {
        failNext--;
        res.writeHead(500).end("down");
        return;
      }
      received.push({
        body: Buffer.concat(chunks).toString(),
        signature: String(req.headers["stripe-signature"]),
      });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/stripe`;
  h = await harness({ stripeWebhookUrl: hookUrl });
  stripe = new Stripe(C.stripe.secretKey, {
    host: "127.0.0.1",
    port: h.sb.port,
    protocol: "http",
    maxNetworkRetries: 0,
  });
});
afterAll(async () => {
  await h.sb.close();
  await new Promise((r) => receiver.close(r));
});
beforeEach(async () => {
  await h.ctl("reset", {});
  await h.ctl("stripe/webhook", { retry_base_ms: 20 });
  received = [];
  failNext = 0;
});

/** The first value `fn` finds, polled with vi.waitFor (fails after 3 s). */
const waitFor = <T>(fn: () => T | undefined): Promise<T> =>
  vi.waitFor(
    () => {
      const v = fn();
      if (!v) throw new Error("not yet");
      return v;
    },
    { timeout: 3000, interval: 15 },
  );

function events(): Stripe.Event[] {
  return received.map((r) =>
    stripe.webhooks.constructEvent(r.body, r.signature, C.stripe.webhookSecret),
  );
}

async function subscribe(price: string = SANDBOX_PRICES.premium.monthly) {
  const session = await stripe.checkout.sessions.create({
    mode: "subscription",
    line_items: [{ price, quantity: 1 }],
    success_url: "http://localhost:3000/settings?checkout=success&session_id={CHECKOUT_SESSION_ID}",
    cancel_url: "http://localhost:3000/pricing",
    client_reference_id: "user-42",
    customer_email: "jordan.lee@example.com",
  });
  const page = await fetch(session.url!);
  const html = await page.text();
  expect(html).toContain(">Subscribe<");
  const done = await fetch(session.url!, {
    method: "POST",
    redirect: "manual",
    body: new URLSearchParams({ decision: "subscribe", card: "4242 4242 4242 4242" }),
  });
  expect(done.status).toBe(302);
  expect(done.headers.get("location")).toBe(
    `http://localhost:3000/settings?checkout=success&session_id=${session.id}`,
  );
  return session;
}

describe("Stripe with the official SDK", () => {
  it("seeds the plan prices", async () => {
    const prices = await stripe.prices.list({ limit: 100 });
    const amounts = Object.fromEntries(prices.data.map((p) => [p.id, p.unit_amount]));
    expect(amounts[SANDBOX_PRICES.premium.monthly]).toBe(999);
    expect(amounts[SANDBOX_PRICES.pro.monthly]).toBe(2499);
    expect(amounts[SANDBOX_PRICES.agency.monthly]).toBe(5499);
    expect(amounts[SANDBOX_PRICES.premium.annual]).toBe(9999);
    expect(amounts[SANDBOX_PRICES.pro.annual]).toBe(24999);
    expect(amounts[SANDBOX_PRICES.agency.annual]).toBe(54999);
    const price = await stripe.prices.retrieve(SANDBOX_PRICES.pro.annual);
    expect(price.recurring?.interval).toBe("year");
  });

  it("creates a checkout session; paying delivers signed webhooks that constructEvent accepts", async () => {
    const session = await subscribe();
    expect(session.object).toBe("checkout.session");
    expect(session.status).toBe("open");
    expect(session.url).toBe(`${h.url}/checkout.stripe.com/c/pay/${session.id}`);
    await waitFor(() => events().find((e) => e.type === "checkout.session.completed"));
    const all = events();
    const types = all.map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining([
        "customer.created",
        "customer.subscription.created",
        "invoice.paid",
        "checkout.session.completed",
      ]),
    );
    const completed = all.find((e) => e.type === "checkout.session.completed")!.data
      .object as Stripe.Checkout.Session;
    expect(completed.client_reference_id).toBe("user-42");
    expect(completed.status).toBe("complete");
    const sub = await stripe.subscriptions.retrieve(completed.subscription as string);
    expect(sub.status).toBe("active");
    expect(sub.items.data[0]!.price.id).toBe(SANDBOX_PRICES.premium.monthly);
    expect(sub.items.data[0]!.current_period_end).toBeGreaterThan(
      sub.items.data[0]!.current_period_start,
    );
    const invoice = all.find((e) => e.type === "invoice.paid")!.data.object as Stripe.Invoice;
    expect(invoice.parent?.subscription_details?.subscription).toBe(sub.id);
    const again = await stripe.checkout.sessions.retrieve(session.id, { expand: ["subscription"] });
    expect((again.subscription as Stripe.Subscription).id).toBe(sub.id);
    expect(() =>
      stripe.webhooks.constructEvent(received[0]!.body, received[0]!.signature, "whsec_wrong"),
    ).toThrow();
  });

  it("lists a customer's Checkout Sessions by status; expired ones cannot be paid", async () => {
    const customer = await stripe.customers.create({ email: "two.tabs@example.com" });
    const open = (price: string) =>
      stripe.checkout.sessions.create({
        mode: "subscription",
        customer: customer.id,
        line_items: [{ price, quantity: 1 }],
        success_url: "http://localhost:3000/billing/return",
      });
    const a = await open(SANDBOX_PRICES.premium.monthly);
    const b = await open(SANDBOX_PRICES.pro.monthly);
    const listed = await stripe.checkout.sessions.list({ customer: customer.id, status: "open" });
    expect(listed.data.map((x) => x.id)).toEqual([b.id, a.id]);
    await stripe.checkout.sessions.expire(a.id);
    const stillOpen = await stripe.checkout.sessions.list({
      customer: customer.id,
      status: "open",
    });
    expect(stillOpen.data.map((x) => x.id)).toEqual([b.id]);
    const paid = await fetch(a.url!, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ decision: "subscribe", card: "4242 4242 4242 4242" }),
    });
    expect(paid.status).toBe(410);
    await expect(stripe.checkout.sessions.expire(a.id)).rejects.toThrow(/status of "expired"/);
    // An open session expires by itself at expires_at, on the sandbox clock.
    await h.ctl("clock", { advance_seconds: 86_400 });
    expect((await stripe.checkout.sessions.retrieve(b.id)).status).toBe("expired");
  });

  it("cancels with proration: the unused time is credited on a final invoice, with the reason", async () => {
    const session = await subscribe(SANDBOX_PRICES.pro.monthly);
    const done = await stripe.checkout.sessions.retrieve(session.id);
    const sub = await stripe.subscriptions.retrieve(done.subscription as string);
    const item = sub.items.data[0]!;
    const period = item.current_period_end - item.current_period_start;
    await h.ctl("clock", { advance_seconds: Math.floor(period / 4) });
    const cancelled = await stripe.subscriptions.cancel(sub.id, {
      prorate: true,
      invoice_now: true,
      cancellation_details: { comment: "Replaced by sub_other" },
    });
    expect(cancelled.status).toBe("canceled");
    expect(cancelled.cancellation_details).toMatchObject({
      comment: "Replaced by sub_other",
      reason: "cancellation_requested",
    });
    const customer = (await stripe.customers.retrieve(sub.customer as string)) as Stripe.Customer;
    // About three quarters of $24.99 back, as a credit balance (negative).
    expect(customer.balance).toBeLessThan(-1800);
    expect(customer.balance).toBeGreaterThan(-1900);
    const invoices = await stripe.invoices.list({ subscription: sub.id });
    expect(invoices.data[0]).toMatchObject({ total: customer.balance, amount_due: 0 });
    // Cancelling again changes nothing.
    await stripe.subscriptions.cancel(sub.id, { prorate: true, invoice_now: true });
    const again = (await stripe.customers.retrieve(sub.customer as string)) as Stripe.Customer;
    expect(again.balance).toBe(customer.balance);
  });

  it("retries failed webhook deliveries", async () => {
    failNext = 2;
    await stripe.customers.create({ email: "retry@example.com" });
    const ev = await waitFor(() => events().find((e) => e.type === "customer.created"));
    expect(ev).toBeDefined();
    const log = (
      await h.ctl<{
        events: { type: string; delivered: boolean; deliveries: { status: number }[] }[];
      }>("stripe/events")
    ).events.find((e) => e.type === "customer.created")!;
    expect(log.deliveries.map((d) => d.status)).toEqual([500, 500, 200]);
    expect(log.delivered).toBe(true);
  });

  it("billing portal: switch plan, cancel at period end, then the period ends", async () => {
    const session = await subscribe();
    const completed = await waitFor(() =>
      events().find((e) => e.type === "checkout.session.completed"),
    );
    const customer = (completed.data.object as Stripe.Checkout.Session).customer as string;
    const subId = (completed.data.object as Stripe.Checkout.Session).subscription as string;
    const portal = await stripe.billingPortal.sessions.create({
      customer,
      return_url: "http://localhost:3000/settings",
    });
    expect(portal.object).toBe("billing_portal.session");
    const html = await (await fetch(portal.url)).text();
    expect(html).toContain("Cancel plan");
    expect(html).toContain("Switch to Pro monthly");
    const post = (fields: Record<string, string>) =>
      fetch(portal.url, {
        method: "POST",
        redirect: "manual",
        body: new URLSearchParams({ subscription: subId, ...fields }),
      });
    received = [];
    await post({ action: "switch", price: SANDBOX_PRICES.pro.monthly });
    const updated = await waitFor(() =>
      events().find((e) => e.type === "customer.subscription.updated"),
    );
    expect((updated.data.object as Stripe.Subscription).items.data[0]!.price.id).toBe(
      SANDBOX_PRICES.pro.monthly,
    );
    expect(updated.data.previous_attributes).toHaveProperty("items");
    received = [];
    await post({ action: "cancel" });
    const canceling = await waitFor(() =>
      events().find((e) => e.type === "customer.subscription.updated"),
    );
    expect((canceling.data.object as Stripe.Subscription).cancel_at_period_end).toBe(true);
    received = [];
    await h.ctl("clock", { advance_seconds: 32 * 86_400 });
    const deleted = await waitFor(() =>
      events().find((e) => e.type === "customer.subscription.deleted"),
    );
    expect((deleted.data.object as Stripe.Subscription).status).toBe("canceled");
    expect(session.id).toBeTruthy();
  });

  it("renews with the clock and reports failed payments", async () => {
    await subscribe(SANDBOX_PRICES.agency.monthly);
    const completed = await waitFor(() =>
      events().find((e) => e.type === "checkout.session.completed"),
    );
    const subId = (completed.data.object as Stripe.Checkout.Session).subscription as string;
    received = [];
    await h.ctl("clock", { advance_seconds: 31 * 86_400 });
    await waitFor(() => events().find((e) => e.type === "invoice.paid"));
    const renewed = await stripe.subscriptions.retrieve(subId);
    expect(renewed.items.data[0]!.current_period_start).toBeGreaterThan(renewed.created);
    received = [];
    await h.ctl("stripe/payment_failed", { subscription: subId });
    await waitFor(() => events().find((e) => e.type === "invoice.payment_failed"));
    expect((await stripe.subscriptions.retrieve(subId)).status).toBe("past_due");
    const cancelled = await stripe.subscriptions.cancel(subId);
    expect(cancelled.status).toBe("canceled");
  });

  it("answers with Stripe's error shapes", async () => {
    const bad = new Stripe("sk_test_wrong", {
      host: "127.0.0.1",
      port: h.sb.port,
      protocol: "http",
      maxNetworkRetries: 0,
    });
    await expect(bad.customers.create({ email: "x@example.com" })).rejects.toMatchObject({
      type: "StripeAuthenticationError",
      statusCode: 401,
    });
    await expect(
      stripe.checkout.sessions.create({
        mode: "subscription",
        line_items: [{ price: "price_nope", quantity: 1 }],
        success_url: "http://localhost/x",
      }),
    ).rejects.toMatchObject({
      type: "StripeInvalidRequestError",
      param: "line_items[0][price]",
      code: "resource_missing",
    });
    await expect(stripe.customers.retrieve("cus_missing")).rejects.toMatchObject({
      statusCode: 404,
    });
    await h.ctl("faults", {
      endpoint: "stripe.checkout.sessions.create",
      error: "stripe:api_error",
    });
    await expect(
      stripe.checkout.sessions.create({
        mode: "subscription",
        line_items: [{ price: SANDBOX_PRICES.pro.monthly, quantity: 1 }],
        success_url: "http://localhost/x",
      }),
    ).rejects.toMatchObject({ type: "StripeAPIError", statusCode: 500 });
    await h.ctl("faults", { endpoint: "stripe.customers.create", error: "stripe:rate_limit" });
    await expect(stripe.customers.create({})).rejects.toMatchObject({ statusCode: 429 });
  });

  it("a declined test card shows an error and creates nothing", async () => {
    const session = await stripe.checkout.sessions.create({
      mode: "subscription",
      line_items: [{ price: SANDBOX_PRICES.premium.annual, quantity: 1 }],
      success_url: "http://localhost:3000/ok",
      cancel_url: "http://localhost:3000/back",
      customer_email: "x@example.com",
    });
    const res = await fetch(session.url!, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ decision: "subscribe", card: "4000 0000 0000 0002" }),
    });
    const page = await (await fetch(new URL(res.headers.get("location")!, h.url))).text();
    expect(page).toContain("Your card was declined.");
    expect((await stripe.subscriptions.list()).data).toHaveLength(0);
    const back = await fetch(session.url!, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ decision: "back" }),
    });
    expect(back.headers.get("location")).toBe("http://localhost:3000/back");
  });
});
