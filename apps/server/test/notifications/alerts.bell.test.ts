import { SANDBOX_PRICES } from "@keepsake/sandbox";
import { beforeAll, describe, expect, it } from "vitest";
import { alertsSuite, type Connected, HOUR } from "../support/alerts.ts";
import { billingHelpers } from "../support/billing.ts";
import type { SandboxedApp } from "../support/sandbox.ts";

// Alerts from billing, the preferences and addresses that decide their e-mail, and the bell
// (support/alerts.ts). Alerts the server detects: alerts.test.ts.
const suite = alertsSuite();
const { verify, delivered, notificationsOf, subjects } = suite;
let t: SandboxedApp;
let lumen: Connected;
let maya: Connected;
beforeAll(() => {
  ({ t, lumen, maya } = suite.get());
});

describe("billing alerts", () => {
  it("through Stripe's webhooks: plan changed and payment failed, once each, redeliveries add nothing", async () => {
    const b = billingHelpers(t);
    const u = await t.signUp();
    await verify(u.user.id);
    await b.newEvents();
    const paid = await b.checkout(u.token, SANDBOX_PRICES.pro.monthly);
    expect(paid.location).toContain("/billing/return");
    const bought = await b.newEvents();
    await b.deliverAll(bought);
    await b.deliverAll(bought);
    const customer = (await b.stripe.customers.list({ email: u.user.email })).data[0]!;
    const sub = (await b.subscriptionOf(customer.id))!;
    await fetch(`${t.sandbox.url}/_control/stripe/payment_failed`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ subscription: sub.id }),
    });
    const failed = await b.newEvents();
    await b.deliverAll(failed);
    await b.deliverAll(failed);
    const titles = (await notificationsOf(u.user.id, "alert_billing")).map((n) => n.title).sort();
    expect(titles).toEqual(["Your Keepsake payment failed", "Your plan is now Pro"]);
    const mails = await delivered(u);
    expect(subjects(mails)).toEqual(["Your Keepsake payment failed", "Your plan is now Pro"]);
    expect(mails.find((m) => m.subject.includes("failed"))!.text).toContain(
      "Your plan keeps running until",
    );
  });

  it("payment failed and plan changed: once per Stripe event", async () => {
    const event = {
      userId: maya.user.id,
      eventId: "evt_test_failed_1",
      type: "invoice.payment_failed",
      before: "pro" as const,
      after: "pro" as const,
      periodEnd: new Date(t.clock.now().getTime() + 10 * 24 * HOUR),
    };
    await t.ctx.alerts.billingEvent(event);
    await t.ctx.alerts.billingEvent(event);
    const billing = await notificationsOf(maya.user.id, "alert_billing");
    expect(billing.map((n) => n.title)).toEqual(["Your Keepsake payment failed"]);
    const mails = (await delivered(maya)).filter(
      (m) => m.subject === "Your Keepsake payment failed",
    );
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain("returns to Free");

    const downgrade = {
      ...event,
      eventId: "evt_test_downgrade_1",
      type: "customer.subscription.deleted",
      after: "free" as const,
      periodEnd: null,
    };
    await t.ctx.alerts.billingEvent(downgrade);
    await t.ctx.alerts.billingEvent(downgrade);
    const titles = (await notificationsOf(maya.user.id, "alert_billing")).map((n) => n.title);
    expect(titles.sort()).toEqual(["Your Keepsake payment failed", "Your plan is now Free"]);
  });
});

describe("preferences and addresses", () => {
  it("a category turned off: no e-mail, the bell still has it", async () => {
    const prefs = await t.call("GET", "/api/notifications/preferences", { token: maya.token });
    expect(prefs.status).toBe(200);
    expect(prefs.body.email_verified).toBe(true);
    expect(prefs.body.categories).toContainEqual({ category: "alert_billing", enabled: true });
    expect(prefs.body.categories).toContainEqual({ category: "digest_weekly", enabled: false });
    const off = await t.call("PUT", "/api/notifications/preferences", {
      token: maya.token,
      body: { category: "alert_billing", enabled: false },
    });
    expect(off.status).toBe(200);
    expect(off.body.categories).toContainEqual({ category: "alert_billing", enabled: false });
    const bad = await t.call("PUT", "/api/notifications/preferences", {
      token: maya.token,
      body: { category: "account", enabled: false },
    });
    expect(bad.status).toBe(404);
    expect(bad.body.detail).toMatch(/Unknown notification category/);

    await t.ctx.alerts.billingEvent({
      userId: maya.user.id,
      eventId: "evt_test_failed_2",
      type: "invoice.payment_failed",
      before: "pro",
      after: "pro",
      periodEnd: null,
    });
    const entries = await notificationsOf(maya.user.id, "alert_billing");
    expect(entries).toHaveLength(3);
    const second = await t.ctx.notifications.byKey("alert:payment-failed:evt_test_failed_2");
    expect(second?.mail_skipped).toBe("unsubscribed");
    const mails = (await delivered(maya)).filter(
      (m) => m.subject === "Your Keepsake payment failed",
    );
    expect(mails).toHaveLength(1);
    await t.call("PUT", "/api/notifications/preferences", {
      token: maya.token,
      body: { category: "alert_billing", enabled: true },
    });
  });

  it("an unverified address gets no alert e-mail; the bell does", async () => {
    const u = await t.signUp();
    await t.ctx.alerts.billingEvent({
      userId: u.user.id,
      eventId: "evt_test_failed_unverified",
      type: "invoice.payment_failed",
      before: "premium",
      after: "premium",
      periodEnd: null,
    });
    const entries = await notificationsOf(u.user.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.mail_skipped).toBe("address not verified");
    expect(await delivered(u)).toHaveLength(0);
    const prefs = await t.call("GET", "/api/notifications/preferences", { token: u.token });
    expect(prefs.body.email_verified).toBe(false);
  });

  it("the weekly digest is off by default, and once a week when on", async () => {
    const digests = async () =>
      (await delivered(maya)).filter((m) => m.subject === "Your Keepsake week");
    await t.ctx.alerts.weeklyDigest();
    expect(await digests()).toHaveLength(0);
    await t.call("PUT", "/api/notifications/preferences", {
      token: maya.token,
      body: { category: "digest_weekly", enabled: true },
    });
    await t.ctx.alerts.weeklyDigest();
    await t.ctx.alerts.weeklyDigest();
    const mails = await digests();
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain("posts are safe in your Drive");
    // No bell entry for the digest.
    expect(await notificationsOf(maya.user.id, "digest_weekly")).toHaveLength(0);
  });
});

describe("the bell", () => {
  it("lists, counts unread, marks one and all as read; another user's entry is not found", async () => {
    const list = await t.call("GET", "/api/notifications", { token: maya.token });
    expect(list.status).toBe(200);
    expect(list.body.unread).toBeGreaterThan(2);
    // An unread entry: one whose cause was already fixed is shown resolved and counts as read.
    const first = list.body.notifications.find((n: { read: boolean }) => !n.read);
    const read = await t.call("POST", `/api/notifications/${first.id}/read`, {
      token: maya.token,
    });
    expect(read.status).toBe(200);
    expect(read.body.unread).toBe(list.body.unread - 1);
    const other = await t.call("POST", `/api/notifications/${first.id}/read`, {
      token: lumen.token,
    });
    expect(other.status).toBe(404);
    expect(
      (await t.call("POST", "/api/notifications/not-a-uuid/read", { token: maya.token })).status,
    ).toBe(422);
    const all = await t.call("POST", "/api/notifications/read-all", { token: maya.token });
    expect(all.body.unread).toBe(0);
    const count = await t.call("GET", "/api/notifications/unread-count", { token: maya.token });
    expect(count.body).toEqual({ unread: 0 });
    expect((await t.call("GET", "/api/notifications")).status).toBe(401);
  });
});
